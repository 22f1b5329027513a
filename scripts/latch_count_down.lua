-- latch_count_down.lua: count a count-down latch down by one (Redisson's
-- countDown): at zero or below the count is deleted, and reaching zero is
-- announced.
--
-- KEYS[1] the latch's count
-- KEYS[2] its channel
-- KEYS[3] the request's latch
-- ARGV[1] the zero message, "0"
-- ARGV[2] the publish command
-- ARGV[3] the request latch's TTL, milliseconds
--
-- Reply: the count after the request.
local done = replied(KEYS[3])
if done then
  return done
end
local v = redis.call('decr', KEYS[1])
if v <= 0 then
  redis.call('del', KEYS[1])
end
if v == 0 then
  redis.call(ARGV[2], KEYS[2], ARGV[1])
end
return record(KEYS[3], v, ARGV[3])
