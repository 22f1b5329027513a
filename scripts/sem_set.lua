-- sem_set.lua: set a semaphore's permits if it has no count yet, and
-- announce them (Redisson's trySetPermits).
--
-- KEYS[1] the semaphore's count
-- KEYS[2] its channel
-- ARGV[1] permits
-- ARGV[2] the publish command
--
-- Reply: 1 when set, 0 when the count existed (nothing changed).
-- A key of another kind (counting.lua's foreign) is a WRONGTYPE error
-- reply, before anything is read or changed.
local bad = foreign(KEYS[1])
if bad then
  return redis.error_reply(bad)
end
if redis.call('get', KEYS[1]) ~= false then
  return 0
end
redis.call('set', KEYS[1], ARGV[1])
redis.call(ARGV[2], KEYS[2], ARGV[1])
return 1
