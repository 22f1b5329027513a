-- pe_set.lua: give a permit-expirable semaphore n permits in all, the
-- leased ones included, and announce n (Redisson's setPermits). Without
-- a count, the count is set to n; else the available permits move by n
-- less the permits there are (available and leased, expired leases
-- included: they come back to the count later), and nothing is changed or
-- announced when those are n already.
--
-- KEYS[1] the semaphore's count
-- KEYS[2] its channel
-- KEYS[3] its leased permits
-- ARGV[1] n
-- ARGV[2] the publish command
--
-- Reply: 1 when the count changed, else 0.
-- A key of another kind (counting.lua's foreign) is a WRONGTYPE error
-- reply, before anything is read or changed.
local bad = foreign(KEYS[1], nil, KEYS[3])
if bad then
  return redis.error_reply(bad)
end
local n = tonumber(ARGV[1])
local available = redis.call('get', KEYS[1])
if available == false then
  redis.call('set', KEYS[1], n)
  redis.call(ARGV[2], KEYS[2], n)
  return 1
end
local all = tonumber(available) + redis.call('zcard', KEYS[3])
if all == n then
  return 0
end
redis.call('incrby', KEYS[1], n - all)
redis.call(ARGV[2], KEYS[2], n)
return 1
