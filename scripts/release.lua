-- Release one hold of a reentrant lock, at most once per request.
--
-- KEYS[1]  lock hash
-- KEYS[2]  unlock channel
-- KEYS[3]  unlock latch of this release request (Redisson's
--          redisson_unlock_latch layout)
-- ARGV[1]  unlock message
-- ARGV[2]  lease in milliseconds, re-armed while holds remain
-- ARGV[3]  owner id
-- ARGV[4]  publish command: "publish", or "spublish" for sharded pub/sub
-- ARGV[5]  latch time to live in milliseconds
--
-- Returns nil when the owner does not hold the lock; 0 when holds remain
-- (lease re-armed); 1 when this was the last hold: the owner's field is
-- removed, the key with it, and the unlock message is published. The
-- outcome is kept in the latch, so a retry of the same request whose reply
-- was lost gets the same answer and releases nothing twice.
local done = redis.call('get', KEYS[3])
if done ~= false then
  return tonumber(done)
end
local holds = redis.call('hget', KEYS[1], ARGV[3])
if holds == false then
  return nil
end
if tonumber(holds) > 1 then
  redis.call('hincrby', KEYS[1], ARGV[3], -1)
  redis.call('pexpire', KEYS[1], ARGV[2])
  redis.call('set', KEYS[3], 0, 'px', ARGV[5])
  return 0
end
redis.call('hdel', KEYS[1], ARGV[3])
if redis.call('exists', KEYS[1]) == 0 then
  redis.call(ARGV[4], KEYS[2], ARGV[1])
end
redis.call('set', KEYS[3], 1, 'px', ARGV[5])
return 1
