-- pe_update.lua: give a leased permit a new expiry (Redisson's
-- updateLeaseTime), once expired permits came back.
--
-- KEYS[1] the semaphore's count
-- KEYS[2] its leases
-- KEYS[3] its channel
-- ARGV[1] the permit id
-- ARGV[2] its new expiry, epoch ms
-- ARGV[3] now, epoch ms
-- ARGV[4] the publish command
--
-- Reply: 1 when updated, 0 when the permit is not leased (expired or
-- released).
-- A key of another kind (counting.lua's foreign) is a WRONGTYPE error
-- reply, before anything is read or changed.
local bad = foreign(KEYS[1], nil, KEYS[2])
if bad then
  return redis.error_reply(bad)
end
reclaim(KEYS[1], KEYS[2], KEYS[3], ARGV[3], -1, ARGV[4])
if redis.call('zscore', KEYS[2], ARGV[1]) == false then
  return 0
end
redis.call('zadd', KEYS[2], ARGV[2], ARGV[1])
return 1
