-- Acquire or re-enter a reentrant lock (Redisson RLock layout).
--
-- KEYS[1]  lock hash: field = owner id, value = hold count
-- ARGV[1]  lease in milliseconds
-- ARGV[2]  owner id
-- ARGV[3]  holds the owner had before this acquisition, as it knows them
--
-- Returns the hold count (positive) when the owner now holds the lock
-- (lease re-armed), else -(TTL + 2), from the lock's remaining TTL in
-- milliseconds (-1: the key has none), so at most -1; or an error
-- (NOT_A_LOCK) when the key is not a lock. (Redisson's script answers nil
-- for the first and the TTL for the second; one integer either way keeps
-- the client off its error path and is the smallest reply to read; the
-- fenced acquisition answers an array, as it has a token to add.) A
-- retried acquisition is not
-- counted twice (take_hold). Two commands when the lock is held by another
-- owner, three when it is free.
local ttl = redis.call('pttl', KEYS[1])
if ttl ~= -2 and redis.call('hexists', KEYS[1], ARGV[2]) == 0 then
  if not_a_lock(KEYS[1]) then
    return redis.error_reply(NOT_A_LOCK)
  end
  return -(ttl + 2)
end
return (take_hold(KEYS[1], ARGV[2], ARGV[3], ARGV[1], ttl == -2))
