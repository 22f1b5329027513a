-- Leave a fair read-write lock's line: a waiter gives up. Prepended with
-- scripts.New's helpers and fair_common.lua.
--
-- KEYS[1]  lock hash
-- KEYS[2]  queue LIST
-- KEYS[3]  deadline ZSET
-- KEYS[4]  the lock's channel
-- ARGV[1]  entry
-- ARGV[2]  wait timeout in milliseconds
-- ARGV[3]  wake-up message
-- ARGV[4]  publish command
--
-- Removes the entry from the LIST and the ZSET, moves the deadlines behind
-- it up one place, and wakes the new head if its turn has come. Returns 1
-- when the entry was queued, else 0.
local pos = redis.call('lpos', KEYS[2], ARGV[1])
if not pos then
  return 0
end
move_up(KEYS[3], redis.call('lrange', KEYS[2], pos + 1, -1), tonumber(ARGV[2]))
redis.call('zrem', KEYS[3], ARGV[1])
redis.call('lrem', KEYS[2], 0, ARGV[1])
if pos == 0 then
  wake_rw_head(KEYS[1], KEYS[2], KEYS[3], KEYS[4], ARGV[3], ARGV[4], nil, 100)
end
return 1
