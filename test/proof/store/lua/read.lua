-- Reads a fenced register and raises the highest token it has seen.
--
-- KEYS[1]  the register: a hash, v = value, h = highest token seen
-- ARGV[1]  the reader's fencing token
--
-- Returns the value (0 when never written). The token seen rises to
-- max(h, token) even though nothing is written, so that a holder paused
-- between its read and its write cannot write after a later holder read.
local h = tonumber(redis.call('hget', KEYS[1], 'h') or '0')
if tonumber(ARGV[1]) > h then
  redis.call('hset', KEYS[1], 'h', ARGV[1])
end
return tonumber(redis.call('hget', KEYS[1], 'v') or '0')
