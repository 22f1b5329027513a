-- Release one hold of a fair lock. Prepended with fair_common.lua.
--
-- KEYS[1]  lock hash
-- KEYS[2]  queue LIST
-- KEYS[3]  deadline ZSET
-- KEYS[4]  unlock channel
-- ARGV[1]  unlock message
-- ARGV[2]  lease in milliseconds, re-armed while holds remain
-- ARGV[3]  owner id
-- ARGV[4]  publish command
--
-- Stale waiters are evicted from the head first. Returns nil when the owner
-- does not hold the lock (when the lock is gone altogether, the head waiter
-- is woken all the same, as Redisson does: an expired lock announces
-- nothing); 0 when holds remain (lease re-armed); 1 when this was the last
-- hold: the field is removed, the key with it, and the head waiter alone is
-- woken on its own channel.
evict_stale(KEYS[2], KEYS[3], now_ms())
if redis.call('exists', KEYS[1]) == 0 then
  wake_head(KEYS[2], KEYS[4], ARGV[1], ARGV[4], nil)
  return nil
end
if redis.call('hexists', KEYS[1], ARGV[3]) == 0 then
  return nil
end
if redis.call('hincrby', KEYS[1], ARGV[3], -1) > 0 then
  redis.call('pexpire', KEYS[1], ARGV[2])
  return 0
end
redis.call('hdel', KEYS[1], ARGV[3])
if redis.call('exists', KEYS[1]) == 0 then
  wake_head(KEYS[2], KEYS[4], ARGV[1], ARGV[4], nil)
end
return 1
