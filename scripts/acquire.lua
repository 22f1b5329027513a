-- Acquire or re-enter a reentrant lock (Redisson RLock layout).
--
-- KEYS[1]  lock hash: field = owner id, value = hold count
-- ARGV[1]  lease in milliseconds
-- ARGV[2]  owner id
--
-- Returns nil when the owner now holds the lock (hold count incremented,
-- lease re-armed), else the lock's remaining TTL in milliseconds.
if redis.call('exists', KEYS[1]) == 0 or redis.call('hexists', KEYS[1], ARGV[2]) == 1 then
  redis.call('hincrby', KEYS[1], ARGV[2], 1)
  redis.call('pexpire', KEYS[1], ARGV[1])
  return nil
end
return redis.call('pttl', KEYS[1])
