-- Redisson's RFairLock unlock, written from the protocol note for the
-- interop test.
--
-- KEYS[1] lock hash, KEYS[2] queue LIST, KEYS[3] deadline ZSET,
-- KEYS[4] unlock channel
-- ARGV[1] unlock message, ARGV[2] lease ms, ARGV[3] owner id, ARGV[4] now ms
--
-- Returns nil when not held by the owner, 0 when holds remain, 1 when
-- released (the head waiter is woken on its own channel).
while true do
  local head = redis.call('lindex', KEYS[2], 0)
  if head == false then break end
  if tonumber(redis.call('zscore', KEYS[3], head)) <= tonumber(ARGV[4]) then
    redis.call('zrem', KEYS[3], head)
    redis.call('lpop', KEYS[2])
  else
    break
  end
end
if redis.call('exists', KEYS[1]) == 0 then
  local head = redis.call('lindex', KEYS[2], 0)
  if head ~= false then
    redis.call('publish', KEYS[4] .. ':' .. head, ARGV[1])
  end
  return 1
end
if redis.call('hexists', KEYS[1], ARGV[3]) == 0 then
  return nil
end
if redis.call('hincrby', KEYS[1], ARGV[3], -1) > 0 then
  redis.call('pexpire', KEYS[1], ARGV[2])
  return 0
end
redis.call('del', KEYS[1])
local head = redis.call('lindex', KEYS[2], 0)
if head ~= false then
  redis.call('publish', KEYS[4] .. ':' .. head, ARGV[1])
end
return 1
