-- latch_set.lua: set a count-down latch's count if it has none, and
-- announce a new count (Redisson's trySetCount).
--
-- KEYS[1] the latch's count
-- KEYS[2] its channel, redisson_countdownlatch__channel__{NAME}
-- ARGV[1] the new-count message, "1"
-- ARGV[2] the count
-- ARGV[3] the publish command
--
-- Reply: 1 when set, 0 when the latch had a count (nothing changed).
-- A key of another kind (counting.lua's foreign) is a WRONGTYPE error
-- reply, before anything is read or changed.
local bad = foreign(KEYS[1])
if bad then
  return redis.error_reply(bad)
end
if redis.call('exists', KEYS[1]) == 1 then
  return 0
end
redis.call('set', KEYS[1], ARGV[2])
redis.call(ARGV[3], KEYS[2], ARGV[1])
return 1
