-- Release one hold of a reentrant lock.
--
-- KEYS[1]  lock hash
-- KEYS[2]  unlock channel
-- ARGV[1]  unlock message
-- ARGV[2]  lease in milliseconds, re-armed while holds remain
-- ARGV[3]  owner id
-- ARGV[4]  publish command: "publish", or "spublish" for sharded pub/sub
--
-- Returns nil when the owner does not hold the lock; 0 when holds remain
-- (lease re-armed); 1 when this was the last hold: the owner's field is
-- removed, the key with it, and the unlock message is published.
if redis.call('hexists', KEYS[1], ARGV[3]) == 0 then
  return nil
end
if redis.call('hincrby', KEYS[1], ARGV[3], -1) > 0 then
  redis.call('pexpire', KEYS[1], ARGV[2])
  return 0
end
redis.call('hdel', KEYS[1], ARGV[3])
if redis.call('exists', KEYS[1]) == 0 then
  redis.call(ARGV[4], KEYS[2], ARGV[1])
end
return 1
