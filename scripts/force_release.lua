-- Delete a lock whoever holds it (administrative force-unlock).
--
-- KEYS[1]  lock hash
-- KEYS[2]  unlock channel
-- ARGV[1]  unlock message
-- ARGV[2]  publish command: "publish" or "spublish"
--
-- Returns 1 when a lock was deleted (and the unlock message published),
-- 0 when there was none; an error (not_a) when the key holds a
-- value that is not a lock: nothing is deleted.
if not_a_lock(KEYS[1]) then
  return not_a(KEYS[1], 'lock')
end
if redis.call('del', KEYS[1]) == 1 then
  redis.call(ARGV[2], KEYS[2], ARGV[1])
  return 1
end
return 0
