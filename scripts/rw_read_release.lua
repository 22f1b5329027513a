-- Release one read hold of a read-write lock, at most once per request.
--
-- KEYS[1]  lock hash
-- KEYS[2]  the lock's channel (redisson_rwlock:{name})
-- KEYS[3]  prefix of this owner's read-timeout keys
-- KEYS[4]  what precedes ':' .. field .. ':rwlock_timeout' in every
--          reader's read-timeout keys
-- KEYS[5]  unlock latch of this release request
-- ARGV[1]  unlock message ('0', as Redisson's read unlock)
-- ARGV[2]  owner id (the read field)
-- ARGV[3]  publish command
-- ARGV[4]  latch time to live in milliseconds
-- ARGV[5]  lease in milliseconds, re-armed on this owner's remaining holds
--
-- Returns nil when the owner holds no read lock; 0 when it still holds
-- some (their leases re-armed); 1 when this was its last. The hash then
-- lives as long as the longest lease left among all readers; when none is
-- left and no writer holds it, it is deleted and the unlock message
-- published, as Redisson does. (A lock already gone is announced too, as
-- Redisson does, and reported not held.)
local done = latched(KEYS[5])
if done then
  return done
end
local mode = redis.call('hget', KEYS[1], 'mode')
if mode == false then
  redis.call(ARGV[3], KEYS[2], ARGV[1])
  return nil
end
if redis.call('hexists', KEYS[1], ARGV[2]) == 0 then
  return nil
end
local left = redis.call('hincrby', KEYS[1], ARGV[2], -1)
redis.call('del', KEYS[3] .. ':' .. (left + 1))
local outcome = 0
if left == 0 then
  redis.call('hdel', KEYS[1], ARGV[2])
  outcome = 1
end
for i = 1, left do
  redis.call('pexpire', KEYS[3] .. ':' .. i, ARGV[5])
end
if redis.call('hlen', KEYS[1]) > 1 then
  local longest = -3
  for _, field in ipairs(redis.call('hkeys', KEYS[1])) do
    local n = tonumber(redis.call('hget', KEYS[1], field))
    if n then
      for i = n, 1, -1 do
        longest = math.max(longest, redis.call('pttl', KEYS[4] .. ':' .. field .. ':rwlock_timeout:' .. i))
      end
    end
  end
  if longest > 0 then
    redis.call('pexpire', KEYS[1], longest)
    return latch(KEYS[5], outcome, ARGV[4])
  end
  if mode == 'write' then
    return latch(KEYS[5], outcome, ARGV[4])
  end
end
redis.call('del', KEYS[1])
redis.call(ARGV[3], KEYS[2], ARGV[1])
return latch(KEYS[5], outcome, ARGV[4])
