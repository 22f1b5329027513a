-- Release one read hold of a read-write lock, at most once per request.
--
-- KEYS[1]  lock hash
-- KEYS[2]  the lock's channel (redisson_rwlock:{name})
-- KEYS[3]  prefix of this owner's read-timeout keys
-- KEYS[4]  what precedes ':' .. field .. ':rwlock_timeout' in every
--          reader's read-timeout keys
-- KEYS[5]  the read side's unlock latch
-- ARGV[1]  unlock message ('0', as Redisson's read unlock)
-- ARGV[2]  owner id (the read field)
-- ARGV[3]  publish command
-- ARGV[4]  latch time to live in milliseconds
-- ARGV[5]  lease in milliseconds, re-armed on this owner's remaining holds
-- ARGV[6]  this request's number among the side's release requests
--
-- Returns nil when the owner holds no read lock; 0 when it still holds
-- some; 1 when this was its last. The hash then lives as long as the
-- longest lease left among all readers; when none is left and no writer
-- holds it, it is deleted and the unlock message published, as Redisson
-- does. (A lock already gone is announced too, as Redisson does, and
-- reported not held.)
local done = latched(KEYS[5], ARGV[6])
if done then
  return done
end
local mode = redis.call('hget', KEYS[1], 'mode')
if mode == false then
  redis.call(ARGV[3], KEYS[2], ARGV[1])
  return nil
end
local outcome, gone = drop_read(KEYS[1], mode, KEYS[3], KEYS[4], ARGV[2], ARGV[5])
if outcome == nil then
  return nil
end
if gone then
  redis.call(ARGV[3], KEYS[2], ARGV[1])
end
return latch(KEYS[5], ARGV[6], outcome, ARGV[4])
