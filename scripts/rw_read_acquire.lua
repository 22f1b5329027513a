-- Acquire or re-enter the read lock of a read-write lock (Redisson
-- RReadWriteLock layout): hash field 'mode' = 'read' or 'write'; a reader's
-- field is its owner id, valued its hold count, and each of its holds n has
-- a key KEYS[2] .. ':' .. n that carries that hold's lease; the writer's
-- field is '<owner id>:write'.
--
-- KEYS[1]  lock hash
-- KEYS[2]  prefix of this owner's read-timeout keys
-- ARGV[1]  lease in milliseconds
-- ARGV[2]  owner id (the read field)
-- ARGV[3]  this owner's write field: a write holder may also read
-- ARGV[4]  read holds the owner had before this acquisition, as it knows them
--
-- Returns {1, hold count} when the owner now holds a read lock, else {0,
-- the lock's remaining TTL in milliseconds}. The hash lives as long as its
-- longest lease. A retried acquisition is not counted twice.
local mode = redis.call('hget', KEYS[1], 'mode')
if mode == false then
  redis.call('hset', KEYS[1], 'mode', 'read')
  redis.call('hset', KEYS[1], ARGV[2], 1)
  redis.call('set', KEYS[2] .. ':1', 1, 'px', ARGV[1])
  redis.call('pexpire', KEYS[1], ARGV[1])
  return {1, 1}
end
if mode == 'read' or redis.call('hexists', KEYS[1], ARGV[3]) == 1 then
  local holds = tonumber(redis.call('hget', KEYS[1], ARGV[2]) or '0')
  if holds ~= tonumber(ARGV[4]) + 1 then
    holds = redis.call('hincrby', KEYS[1], ARGV[2], 1)
  end
  redis.call('set', KEYS[2] .. ':' .. holds, 1, 'px', ARGV[1])
  redis.call('pexpire', KEYS[1], math.max(redis.call('pttl', KEYS[1]), tonumber(ARGV[1])))
  return {1, holds}
end
return {0, redis.call('pttl', KEYS[1])}
