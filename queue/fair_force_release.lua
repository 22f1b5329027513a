-- Delete a fair lock whoever holds it (administrative force-unlock).
-- Prepended with scripts.New's helpers and fair_common.lua.
--
-- KEYS[1]  lock hash
-- KEYS[2]  queue LIST
-- KEYS[3]  deadline ZSET
-- KEYS[4]  unlock channel
-- KEYS[5]  relock waiters HASH
-- ARGV[1]  unlock message
-- ARGV[2]  publish command
-- ARGV[3]  wait timeout in milliseconds
--
-- Stale waiters are evicted from the head first. Returns 1 when a lock was
-- deleted (and the turn passed to the head), 0 when there was none; an
-- error (not_a), changing nothing, when the key is not a lock. The
-- queue is kept: its waiters still get their turns in order.
if not_a_lock(KEYS[1]) then
  return not_a(KEYS[1], 'lock')
end
evict_stale(KEYS[2], KEYS[3], now_ms(), KEYS[5])
if redis.call('del', KEYS[1]) == 1 then
  grant_next(KEYS[1], KEYS[2], KEYS[3], KEYS[5], KEYS[4], ARGV[1], ARGV[2], tonumber(ARGV[3]))
  return 1
end
return 0
