-- Acquire or re-enter the write lock of a read-write lock (Redisson
-- RReadWriteLock layout; see the helpers, hold.lua).
--
-- KEYS[1]  lock hash
-- ARGV[1]  lease in milliseconds
-- ARGV[2]  this owner's write field ('<owner id>:write')
-- ARGV[3]  owner id (its read field)
-- ARGV[4]  write holds the owner had before this acquisition, as it knows them
--
-- Returns {1, hold count} when the owner now holds the write lock; {2, TTL}
-- when it cannot because it holds a read lock itself (an upgrade, which
-- Redisson would wait for forever: readers never leave for it); else {0,
-- the lock's remaining TTL in milliseconds}. A retried acquisition is not
-- counted twice. A key that is not a read-write lock (no mode field, or
-- not_a_lock) is an error (not_a).
if not_a_lock(KEYS[1]) then
  return not_a(KEYS[1], 'lock')
end
local mode = redis.call('hget', KEYS[1], 'mode')
if mode == false and redis.call('exists', KEYS[1]) == 1 then
  return not_a(KEYS[1], 'read-write lock')
end
if mode == false or (mode == 'write' and redis.call('hexists', KEYS[1], ARGV[2]) == 1) then
  return {1, take_write(KEYS[1], mode, ARGV[2], ARGV[4], ARGV[1])}
end
if redis.call('hexists', KEYS[1], ARGV[3]) == 1 then
  return {2, redis.call('pttl', KEYS[1])}
end
return {0, redis.call('pttl', KEYS[1])}
