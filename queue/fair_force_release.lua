-- Delete a fair lock whoever holds it (administrative force-unlock).
-- Prepended with scripts.New's helpers and fair_common.lua.
--
-- KEYS[1]  lock hash
-- KEYS[2]  queue LIST
-- KEYS[3]  deadline ZSET
-- KEYS[4]  unlock channel
-- ARGV[1]  unlock message
-- ARGV[2]  publish command
--
-- Stale waiters are evicted from the head first. Returns 1 when a lock was
-- deleted (and the head waiter woken on its own channel), 0 when there was
-- none. The queue is kept: its waiters still get their turns in order.
evict_stale(KEYS[2], KEYS[3], now_ms())
if redis.call('del', KEYS[1]) == 1 then
  wake_head(KEYS[2], KEYS[4], ARGV[1], ARGV[2], nil)
  return 1
end
return 0
