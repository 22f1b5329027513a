-- sem_drain.lua: take every available permit of a semaphore (Redisson's
-- drainPermits: the count becomes 0).
--
-- KEYS[1] the semaphore's count
-- KEYS[2] the request's latch
-- ARGV[1] the latch's TTL, milliseconds
--
-- Reply: the permits taken.
local done = replied(KEYS[2])
if done then
  return done
end
local value = redis.call('get', KEYS[1])
if value == false then
  return 0
end
redis.call('set', KEYS[1], 0)
return record(KEYS[2], tonumber(value), ARGV[1])
