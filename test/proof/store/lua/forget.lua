-- Takes a dead process's marks out of a section: those it put there and
-- never took out, since it was killed inside.
--
-- KEYS[1]  how many are inside (a string)
-- KEYS[2]  how many of them each process put there (a hash)
-- ARGV[1]  the dead process
--
-- Returns how many marks were taken out.
local n = tonumber(redis.call('hget', KEYS[2], ARGV[1]) or '0')
if n > 0 then
  redis.call('decrby', KEYS[1], n)
end
redis.call('hdel', KEYS[2], ARGV[1])
return n
