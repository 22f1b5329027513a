-- Redisson's RFairLock acquire attempt (the waiting variant), written from
-- the protocol note for the interop test: relock's library code does not
-- use it. Deadlines come from the caller's clock, as in Redisson.
--
-- KEYS[1] lock hash, KEYS[2] queue LIST, KEYS[3] deadline ZSET
-- ARGV[1] lease ms, ARGV[2] owner id, ARGV[3] wait timeout ms, ARGV[4] now ms
--
-- Returns nil when the owner holds the lock, else a wait in ms.
local now, wait = tonumber(ARGV[4]), tonumber(ARGV[3])
while true do
  local head = redis.call('lindex', KEYS[2], 0)
  if head == false then break end
  if tonumber(redis.call('zscore', KEYS[3], head)) <= now then
    redis.call('zrem', KEYS[3], head)
    redis.call('lpop', KEYS[2])
  else
    break
  end
end
if redis.call('exists', KEYS[1]) == 0 and (redis.call('exists', KEYS[2]) == 0
    or redis.call('lindex', KEYS[2], 0) == ARGV[2]) then
  redis.call('lpop', KEYS[2])
  redis.call('zrem', KEYS[3], ARGV[2])
  local rest = redis.call('zrange', KEYS[3], 0, -1)
  for i = 1, #rest do
    redis.call('zincrby', KEYS[3], -wait, rest[i])
  end
  redis.call('hset', KEYS[1], ARGV[2], 1)
  redis.call('pexpire', KEYS[1], ARGV[1])
  return nil
end
if redis.call('hexists', KEYS[1], ARGV[2]) == 1 then
  redis.call('hincrby', KEYS[1], ARGV[2], 1)
  redis.call('pexpire', KEYS[1], ARGV[1])
  return nil
end
local timeout = redis.call('zscore', KEYS[3], ARGV[2])
if timeout ~= false then
  return math.max(0, tonumber(timeout) - wait - now)
end
local last = redis.call('lindex', KEYS[2], -1)
local ttl
if last ~= false and last ~= ARGV[2] then
  ttl = tonumber(redis.call('zscore', KEYS[3], last)) - now
else
  ttl = redis.call('pttl', KEYS[1])
end
if redis.call('zadd', KEYS[3], ttl + wait + now, ARGV[2]) == 1 then
  redis.call('rpush', KEYS[2], ARGV[2])
end
return ttl
