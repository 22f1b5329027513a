-- Writes a fenced register, if the writer's token is at least the highest
-- the register has seen.
--
-- KEYS[1]  the register: a hash, v = value, h = highest token seen
-- ARGV[1]  the writer's fencing token
-- ARGV[2]  the value
--
-- Returns 1 when the write was accepted (v = value, h = token), 0 when it
-- was rejected (a later token was seen: nothing changes).
if tonumber(ARGV[1]) < tonumber(redis.call('hget', KEYS[1], 'h') or '0') then
  return 0
end
redis.call('hset', KEYS[1], 'h', ARGV[1], 'v', ARGV[2])
return 1
