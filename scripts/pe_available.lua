-- pe_available.lua: the available permits of a permit-expirable semaphore,
-- once its expired permits came back (Redisson's availablePermits).
--
-- KEYS[1] the semaphore's count
-- KEYS[2] its leases
-- KEYS[3] its channel
-- ARGV[1] now, epoch ms
-- ARGV[2] the publish command
--
-- Reply: the count.
-- A key of another kind (counting.lua's foreign) is a WRONGTYPE error
-- reply, before anything is read or changed.
local bad = foreign(KEYS[1], nil, KEYS[2])
if bad then
  return redis.error_reply(bad)
end
reclaim(KEYS[1], KEYS[2], KEYS[3], ARGV[1], -1, ARGV[2])
return tonumber(redis.call('get', KEYS[1]) or 0)
