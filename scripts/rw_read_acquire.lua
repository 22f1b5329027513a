-- Acquire or re-enter the read lock of a read-write lock (Redisson
-- RReadWriteLock layout; see the helpers, hold.lua).
--
-- KEYS[1]  lock hash
-- KEYS[2]  prefix of this owner's read-timeout keys
-- ARGV[1]  lease in milliseconds
-- ARGV[2]  owner id (the read field)
-- ARGV[3]  this owner's write field: a write holder may also read
-- ARGV[4]  read holds the owner had before this acquisition, as it knows them
--
-- Returns {1, hold count} when the owner now holds a read lock, else {0,
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
if may_read(KEYS[1], mode, ARGV[3]) then
  return {1, take_read(KEYS[1], mode, KEYS[2], ARGV[2], ARGV[4], ARGV[1])}
end
return {0, redis.call('pttl', KEYS[1])}
