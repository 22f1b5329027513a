-- sem_release.lua: add ARGV[1] permits to a semaphore and announce the new
-- count on its channel, as Redisson's RSemaphore.release and addPermits do
-- (ARGV[1] may be negative for addPermits; a missing count counts as 0).
--
-- KEYS[1] the semaphore's count
-- KEYS[2] its channel, redisson_sc:{NAME}
-- KEYS[3] the Client's request records (counting.lua)
-- ARGV[1] permits
-- ARGV[2] the publish command (publish or spublish)
-- ARGV[3], ARGV[4], ARGV[5] the request's field, seq and the records' TTL
-- ARGV[6] '1' to count the channel's listeners when a subscriber hears the
--         announcement, '0' not to
--
-- Reply: the count after the request, the one the request made even when
-- resent; a late copy of a request that ended changes nothing and replies
-- the count as it is. Asked to count, a release whose announcement
-- reached a subscriber replies {count, subscribers, relock}: the
-- channel's listeners then, and the relock Clients among them
-- (listeners.lua's announce).
-- A key of another kind (counting.lua's foreign) is a WRONGTYPE error
-- reply, before anything is read or changed.
local bad = foreign(KEYS[1], KEYS[3])
if bad then
  return redis.error_reply(bad)
end
local done = replied(KEYS[3], ARGV[3], ARGV[4])
if done == true then
  return tonumber(redis.call('get', KEYS[1]) or 0)
elseif done then
  return done
end
local value = redis.call('incrby', KEYS[1], ARGV[1])
record(KEYS[3], ARGV[3], ARGV[4], value, ARGV[5])
return announce(value, KEYS[2], ARGV[2], value, ARGV[6])
