-- Acquire or re-enter a reentrant lock (Redisson RLock layout).
--
-- KEYS[1]  lock hash: field = owner id, value = hold count
-- ARGV[1]  lease in milliseconds
-- ARGV[2]  owner id
-- ARGV[3]  holds the owner had before this acquisition, as it knows them
--
-- Returns {1, hold count} when the owner now holds the lock (lease
-- re-armed), else {0, the lock's remaining TTL in milliseconds} (-1: the
-- key has none), or an error (NOT_A_LOCK) when the key is not a lock.
-- (Redisson's script answers nil for the first; an array
-- keeps the client off its error path.) A retried acquisition is not
-- counted twice (take_hold). Two commands when the lock is held by another
-- owner, three when it is free.
local ttl = redis.call('pttl', KEYS[1])
if ttl ~= -2 and redis.call('hexists', KEYS[1], ARGV[2]) == 0 then
  if not_a_lock(KEYS[1]) then
    return redis.error_reply(NOT_A_LOCK)
  end
  return {0, ttl}
end
local holds = take_hold(KEYS[1], ARGV[2], ARGV[3], ARGV[1], ttl == -2)
return {1, holds}
