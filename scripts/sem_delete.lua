-- sem_delete.lua: delete a semaphore (Redisson's delete): its count and,
-- for a permit-expirable semaphore, its leased permits. Nothing is
-- announced, as in Redisson: a waiter has nothing to take until permits
-- are set again.
--
-- KEYS[1] the semaphore's count
-- KEYS[2] its leased permits (a permit-expirable semaphore's), if given
--
-- Reply: 1 when there was a count or a leased permit, else 0.
-- A key of another kind (counting.lua's foreign) is a WRONGTYPE error
-- reply, before anything is read or changed.
local bad = foreign(KEYS[1], nil, KEYS[2])
if bad then
  return redis.error_reply(bad)
end
if redis.call('del', unpack(KEYS)) > 0 then
  return 1
end
return 0
