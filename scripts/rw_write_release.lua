-- Release one write hold of a read-write lock, at most once per request.
--
-- KEYS[1]  lock hash
-- KEYS[2]  the lock's channel (redisson_rwlock:{name})
-- KEYS[3]  the write side's unlock latch
-- ARGV[1]  release message ('1', as Redisson's write unlock: wakes every
--          waiter, since readers may all go in)
-- ARGV[2]  lease in milliseconds, re-armed while holds remain
-- ARGV[3]  this owner's write field
-- ARGV[4]  publish command
-- ARGV[5]  latch time to live in milliseconds
-- ARGV[6]  this request's number among the side's release requests
--
-- Returns nil when the owner does not hold the write lock; 0 when holds
-- remain (lease re-armed); 1 when this was the last: the lock is deleted,
-- or, when the owner still holds read locks it took while writing, turned
-- into a read lock; either way the message is published. (A lock already
-- gone is announced too, as Redisson does, and reported not held.)
local done = latched(KEYS[3], ARGV[6])
if done then
  return done
end
local mode = redis.call('hget', KEYS[1], 'mode')
if mode == false then
  redis.call(ARGV[4], KEYS[2], ARGV[1])
  return nil
end
local outcome = drop_write(KEYS[1], mode, ARGV[3], ARGV[2])
if outcome == nil then
  return nil
end
if outcome == 1 then
  redis.call(ARGV[4], KEYS[2], ARGV[1])
end
return latch(KEYS[3], ARGV[6], outcome, ARGV[5])
