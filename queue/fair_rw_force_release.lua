-- Delete a fair read-write lock whoever holds it (administrative
-- force-unlock). Prepended with scripts.New's helpers and fair_common.lua.
--
-- KEYS[1]  lock hash
-- KEYS[2]  queue LIST
-- KEYS[3]  deadline ZSET
-- KEYS[4]  the lock's channel
-- ARGV[1]  wake-up message
-- ARGV[2]  publish command
--
-- Returns 1 when a lock was deleted (and the head woken), 0 when there was
-- none; an error (not_a), changing nothing, when the key is not a
-- lock. The line is kept.
if not_a_lock(KEYS[1]) then
  return not_a(KEYS[1], 'lock')
end
evict_stale(KEYS[2], KEYS[3], now_ms())
if redis.call('del', KEYS[1]) == 1 then
  wake_rw_head(KEYS[1], KEYS[2], KEYS[3], KEYS[4], ARGV[1], ARGV[2], nil, 100)
  return 1
end
return 0
