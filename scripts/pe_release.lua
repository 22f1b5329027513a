-- pe_release.lua: release permits of a permit-expirable semaphore by id
-- (Redisson's tryRelease): only if every id is leased and unexpired; then
-- they are removed, the count grows by as many, and the number released
-- is announced.
--
-- KEYS[1] the semaphore's count
-- KEYS[2] its channel
-- KEYS[3] its leases
-- KEYS[4] the Client's request records (counting.lua)
-- ARGV[1] now, epoch ms
-- ARGV[2] the publish command
-- ARGV[3], ARGV[4], ARGV[5] the request's field, seq and the records' TTL
-- ARGV[6] '1' to count the channel's listeners when a subscriber hears the
--         announcement, '0' not to
-- ARGV[7...] the permit ids
--
-- Reply: the permits released (also when this request ran before), or 0
-- when an id was not leased or had expired (nothing released), or when
-- this run is a late copy of a request that ended. Asked to count, a
-- release whose announcement reached a subscriber replies {released,
-- subscribers, relock}: the channel's listeners then, and the relock
-- Clients among them (listeners.lua's announce).
-- A key of another kind (counting.lua's foreign) is a WRONGTYPE error
-- reply, before anything is read or changed.
local bad = foreign(KEYS[1], KEYS[4], KEYS[3])
if bad then
  return redis.error_reply(bad)
end
local done = replied(KEYS[4], ARGV[3], ARGV[4])
if done == true then
  return 0
elseif done then
  return done
end
for i = 7, #ARGV do
  local expiry = redis.call('zscore', KEYS[3], ARGV[i])
  if expiry == false or tonumber(expiry) <= tonumber(ARGV[1]) then
    return 0
  end
end
reclaim(KEYS[1], KEYS[3], KEYS[2], ARGV[1], -1, ARGV[2])
local ids = {}
for i = 7, #ARGV do
  table.insert(ids, ARGV[i])
end
local removed = redis.call('zrem', KEYS[3], unpack(ids))
redis.call('incrby', KEYS[1], removed)
record(KEYS[4], ARGV[3], ARGV[4], removed, ARGV[5])
return announce(removed, KEYS[2], ARGV[2], removed, ARGV[6])
