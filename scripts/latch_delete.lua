-- latch_delete.lua: delete a count-down latch, waking its waiters
-- (Redisson's delete).
--
-- KEYS[1] the latch's count
-- KEYS[2] its channel
-- ARGV[1] the zero message, "0"
-- ARGV[2] the publish command
--
-- Reply: 1 when there was a count, else 0.
-- A key of another kind (counting.lua's foreign) is a WRONGTYPE error
-- reply, before anything is read or changed.
local bad = foreign(KEYS[1])
if bad then
  return redis.error_reply(bad)
end
if redis.call('del', KEYS[1]) == 1 then
  redis.call(ARGV[2], KEYS[2], ARGV[1])
  return 1
end
return 0
