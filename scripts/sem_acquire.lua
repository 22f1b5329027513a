-- sem_acquire.lua: take ARGV[1] permits of a semaphore (Redisson's
-- RSemaphore.tryAcquire), if it has that many.
--
-- KEYS[1] the semaphore's count (a string, Redisson's layout)
-- KEYS[2] the request's latch
-- ARGV[1] permits (>= 1)
-- ARGV[2] the latch's TTL, milliseconds
--
-- Reply: the permits left after taking them, or -1 when there were too
-- few (then nothing changed and nothing is recorded).
local done = replied(KEYS[2])
if done then
  return done
end
local value = redis.call('get', KEYS[1])
if value == false or tonumber(value) < tonumber(ARGV[1]) then
  return -1
end
return record(KEYS[2], redis.call('decrby', KEYS[1], ARGV[1]), ARGV[2])
