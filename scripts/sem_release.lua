-- sem_release.lua: add ARGV[1] permits to a semaphore and announce the new
-- count on its channel, as Redisson's RSemaphore.release and addPermits do
-- (ARGV[1] may be negative for addPermits; a missing count counts as 0).
--
-- KEYS[1] the semaphore's count
-- KEYS[2] its channel, redisson_sc:{NAME}
-- KEYS[3] the request's latch
-- ARGV[1] permits
-- ARGV[2] the publish command (publish or spublish)
-- ARGV[3] the latch's TTL, milliseconds
--
-- Reply: the count after the request.
local done = replied(KEYS[3])
if done then
  return done
end
local value = redis.call('incrby', KEYS[1], ARGV[1])
redis.call(ARGV[2], KEYS[2], value)
return record(KEYS[3], value, ARGV[3])
