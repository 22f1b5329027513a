-- Delete a lock whoever holds it (administrative force-unlock).
--
-- KEYS[1]  lock hash
-- KEYS[2]  unlock channel
-- ARGV[1]  unlock message
-- ARGV[2]  publish command: "publish" or "spublish"
--
-- Returns 1 when a lock was deleted (and the unlock message published),
-- 0 when there was none.
if redis.call('del', KEYS[1]) == 1 then
  redis.call(ARGV[2], KEYS[2], ARGV[1])
  return 1
end
return 0
