-- Acquire or re-enter a reentrant lock (Redisson RLock layout).
--
-- KEYS[1]  lock hash: field = owner id, value = hold count
-- ARGV[1]  lease in milliseconds
-- ARGV[2]  owner id
-- ARGV[3]  holds the owner had before this acquisition, as it knows them
--
-- Returns {1, hold count} when the owner now holds the lock (lease
-- re-armed), else {0, the lock's remaining TTL in milliseconds} (-1: the
-- key has none). (Redisson's script answers nil for the first; an array
-- keeps the client off its error path.) The hold count grows by one,
-- except when it already is ARGV[3] + 1: then this is a retry of an
-- acquisition that succeeded but whose reply was lost, and it is not
-- counted twice. Two commands when the lock is held by another owner,
-- three when it is free.
local ttl = redis.call('pttl', KEYS[1])
if ttl ~= -2 then
  local holds = redis.call('hget', KEYS[1], ARGV[2])
  if holds == false then
    return {0, ttl}
  end
  if tonumber(holds) == tonumber(ARGV[3]) + 1 then
    redis.call('pexpire', KEYS[1], ARGV[1])
    return {1, tonumber(holds)}
  end
end
local holds = redis.call('hincrby', KEYS[1], ARGV[2], 1)
redis.call('pexpire', KEYS[1], ARGV[1])
return {1, holds}
