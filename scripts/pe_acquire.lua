-- pe_acquire.lua: take permits of a permit-expirable semaphore under new
-- ids (Redisson's RPermitExpirableSemaphore.tryAcquire): expired permits
-- come back first, then, if enough are available, each id is added to the
-- leases with its expiry.
--
-- KEYS[1] the semaphore's count
-- KEYS[2] its leases, the sorted set {NAME}:timeout
-- KEYS[3] its channel
-- ARGV[1] permits (the number of ids)
-- ARGV[2] the permits' expiry, epoch ms (ARGV[4] when they never expire)
-- ARGV[3] now, epoch ms
-- ARGV[4] Redisson's expiry of permits that never expire
-- ARGV[5] the publish command
-- ARGV[6...] the new permit ids, 16 raw bytes each
--
-- Reply: {1, 0} when taken (also when the same request ran before: its
-- ids are leased already); else {0, E}, E the earliest expiry of a leased
-- permit (0 when none will expire), when a permit may come back.
-- A key of another kind (counting.lua's foreign) is a WRONGTYPE error
-- reply, before anything is read or changed.
local bad = foreign(KEYS[1], nil, KEYS[2])
if bad then
  return redis.error_reply(bad)
end
if redis.call('zscore', KEYS[2], ARGV[6]) then
  return {1, 0}
end
reclaim(KEYS[1], KEYS[2], KEYS[3], ARGV[3], ARGV[1], ARGV[5])
local value = redis.call('get', KEYS[1])
if value ~= false and tonumber(value) >= tonumber(ARGV[1]) then
  redis.call('decrby', KEYS[1], ARGV[1])
  for i = 6, #ARGV do
    redis.call('zadd', KEYS[2], ARGV[2], ARGV[i])
  end
  local ttl = redis.call('pttl', KEYS[1])
  if ttl > 0 then
    redis.call('pexpire', KEYS[2], ttl)
  end
  return {1, 0}
end
local first = redis.call('zrange', KEYS[2], 0, 0, 'WITHSCORES')
if first[1] ~= nil and first[2] ~= ARGV[4] then
  return {0, tonumber(first[2])}
end
return {0, 0}
