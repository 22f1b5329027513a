-- Acquire or re-enter a reentrant lock (Redisson RLock layout).
--
-- KEYS[1]  lock hash: field = owner id, value = hold count
-- ARGV[1]  lease in milliseconds
-- ARGV[2]  owner id
-- ARGV[3]  holds the owner had before this acquisition, as it knows them
--
-- Returns nil when the owner now holds the lock (lease re-armed), else the
-- lock's remaining TTL in milliseconds. The hold count grows by one, except
-- when it already is ARGV[3] + 1: then this is a retry of an acquisition
-- that succeeded but whose reply was lost, and it is not counted twice.
local holds = redis.call('hget', KEYS[1], ARGV[2])
if holds == false then
  if redis.call('exists', KEYS[1]) == 1 then
    return redis.call('pttl', KEYS[1])
  end
  holds = 0
end
if tonumber(holds) ~= tonumber(ARGV[3]) + 1 then
  redis.call('hincrby', KEYS[1], ARGV[2], 1)
end
redis.call('pexpire', KEYS[1], ARGV[1])
return nil
