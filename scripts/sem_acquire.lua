-- sem_acquire.lua: take ARGV[1] permits of a semaphore (Redisson's
-- RSemaphore.tryAcquire), if it has that many.
--
-- KEYS[1] the semaphore's count (a string, Redisson's layout)
-- KEYS[2] the Client's request records (counting.lua)
-- ARGV[1] permits (>= 1)
-- ARGV[2], ARGV[3], ARGV[4] the request's field, seq and the records' TTL
-- (milliseconds)
--
-- Reply: the permits left after taking them, or -1 when there were too
-- few (then nothing changed and nothing is recorded), or when this run is
-- a late copy of a request that ended.
-- A key of another kind (counting.lua's foreign) is a WRONGTYPE error
-- reply, before anything is read or changed.
local bad = foreign(KEYS[1], KEYS[2])
if bad then
  return redis.error_reply(bad)
end
local done = replied(KEYS[2], ARGV[2], ARGV[3])
if done == true then
  return -1
elseif done then
  return done
end
local value = redis.call('get', KEYS[1])
if value == false or tonumber(value) < tonumber(ARGV[1]) then
  return -1
end
return record(KEYS[2], ARGV[2], ARGV[3], redis.call('decrby', KEYS[1], ARGV[1]), ARGV[4])
