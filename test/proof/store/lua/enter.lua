-- Marks a holder in: one more inside the section.
--
-- KEYS[1]  how many are inside (a string)
-- KEYS[2]  how many of them each process put there (a hash)
-- ARGV[1]  the process
--
-- Returns how many are inside, this holder included.
redis.call('hincrby', KEYS[2], ARGV[1], 1)
return redis.call('incr', KEYS[1])
