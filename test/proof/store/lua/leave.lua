-- Marks a holder out: one fewer inside the section.
--
-- KEYS[1]  how many are inside (a string)
-- KEYS[2]  how many of them each process put there (a hash)
-- ARGV[1]  the process
--
-- Returns how many are inside now.
if redis.call('hincrby', KEYS[2], ARGV[1], -1) <= 0 then
  redis.call('hdel', KEYS[2], ARGV[1])
end
return redis.call('decr', KEYS[1])
