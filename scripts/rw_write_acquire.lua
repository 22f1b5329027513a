-- Acquire or re-enter the write lock of a read-write lock (Redisson
-- RReadWriteLock layout; see rw_read_acquire.lua).
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
-- counted twice.
local mode = redis.call('hget', KEYS[1], 'mode')
if mode == false then
  redis.call('hset', KEYS[1], 'mode', 'write')
  redis.call('hset', KEYS[1], ARGV[2], 1)
  redis.call('pexpire', KEYS[1], ARGV[1])
  return {1, 1}
end
if mode == 'write' and redis.call('hexists', KEYS[1], ARGV[2]) == 1 then
  local holds = take_hold(KEYS[1], ARGV[2], ARGV[4], ARGV[1], false)
  return {1, holds}
end
if redis.call('hexists', KEYS[1], ARGV[3]) == 1 then
  return {2, redis.call('pttl', KEYS[1])}
end
return {0, redis.call('pttl', KEYS[1])}
