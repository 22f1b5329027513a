-- Leave a fair lock's queue: a waiter gives up. Prepended with scripts.New's helpers and fair_common.lua.
--
-- KEYS[1]  lock hash
-- KEYS[2]  queue LIST
-- KEYS[3]  deadline ZSET
-- KEYS[4]  unlock channel
-- ARGV[1]  owner id
-- ARGV[2]  wait timeout in milliseconds
-- ARGV[3]  unlock message
-- ARGV[4]  publish command
--
-- Removes the owner from the LIST and the ZSET and takes one wait timeout off
-- the deadline of every waiter behind it, as Redisson does. If the owner was
-- the head and the lock is free, it may have been woken for its turn: the
-- new head is woken instead. Returns 1 when the owner was queued, else 0.
local pos = redis.call('lpos', KEYS[2], ARGV[1])
if not pos then
  return 0
end
move_up(KEYS[3], redis.call('lrange', KEYS[2], pos + 1, -1), tonumber(ARGV[2]))
redis.call('zrem', KEYS[3], ARGV[1])
redis.call('lrem', KEYS[2], 0, ARGV[1])
if pos == 0 and redis.call('exists', KEYS[1]) == 0 then
  wake_head(KEYS[2], KEYS[4], ARGV[3], ARGV[4], nil)
end
return 1
