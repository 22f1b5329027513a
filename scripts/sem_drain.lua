-- sem_drain.lua: take every available permit of a semaphore (Redisson's
-- drainPermits: the count becomes 0).
--
-- KEYS[1] the semaphore's count
-- KEYS[2] the Client's request records (counting.lua)
-- ARGV[1], ARGV[2], ARGV[3] the request's field, seq and the records' TTL
--
-- Reply: the permits taken (0 for a late copy of a request that ended).
-- A key of another kind (counting.lua's foreign) is a WRONGTYPE error
-- reply, before anything is read or changed.
local bad = foreign(KEYS[1], KEYS[2])
if bad then
  return redis.error_reply(bad)
end
local done = replied(KEYS[2], ARGV[1], ARGV[2])
if done == true then
  return 0
elseif done then
  return done
end
local value = redis.call('get', KEYS[1])
if value == false then
  return 0
end
redis.call('set', KEYS[1], 0)
return record(KEYS[2], ARGV[1], ARGV[2], tonumber(value), ARGV[3])
