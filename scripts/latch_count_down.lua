-- latch_count_down.lua: count a count-down latch down by one (Redisson's
-- countDown): at zero or below the count is deleted, and reaching zero is
-- announced.
--
-- KEYS[1] the latch's count
-- KEYS[2] its channel
-- KEYS[3] the Client's request records (counting.lua)
-- ARGV[1] the zero message, "0"
-- ARGV[2] the publish command
-- ARGV[3], ARGV[4], ARGV[5] the request's field, seq and the records' TTL
--
-- Reply: the count after the request, the one the request made even when
-- resent; a late copy of a request that ended changes nothing and replies
-- the count as it is.
-- A key of another kind (counting.lua's foreign) is a WRONGTYPE error
-- reply, before anything is read or changed.
local bad = foreign(KEYS[1], KEYS[3])
if bad then
  return redis.error_reply(bad)
end
local done = replied(KEYS[3], ARGV[3], ARGV[4])
if done == true then
  return tonumber(redis.call('get', KEYS[1]) or 0)
elseif done then
  return done
end
local v = redis.call('decr', KEYS[1])
if v <= 0 then
  redis.call('del', KEYS[1])
end
if v == 0 then
  redis.call(ARGV[2], KEYS[2], ARGV[1])
end
return record(KEYS[3], ARGV[3], ARGV[4], v, ARGV[5])
