-- Release one hold of a fair read-write lock, at most once per request.
-- Prepended with scripts.New's helpers and fair_common.lua.
--
-- KEYS[1]  lock hash
-- KEYS[2]  queue LIST
-- KEYS[3]  deadline ZSET
-- KEYS[4]  the lock's channel
-- KEYS[5]  the released side's unlock latch
-- KEYS[6]  prefix of this owner's read-timeout keys
-- KEYS[7]  what precedes ':' .. field .. ':rwlock_timeout' in every
--          reader's read-timeout keys
-- ARGV[1]  wake-up message
-- ARGV[2]  lease in milliseconds, re-armed while holds remain
-- ARGV[3]  the released side's field (owner id, or '<owner id>:write')
-- ARGV[4]  publish command
-- ARGV[5]  latch time to live in milliseconds
-- ARGV[6]  owner id
-- ARGV[7]  this request's number among the side's release requests
--
-- Returns nil when the owner does not hold that side; 0 when holds
-- remain; 1 when this was its last. Whenever the head's turn has come
-- (the lock free, or read and the head a reader), the head is woken on its
-- own channel, even when the lock was already gone.
local done = latched(KEYS[5], ARGV[7])
if done then
  return done
end
evict_stale(KEYS[2], KEYS[3], now_ms())
local mode = redis.call('hget', KEYS[1], 'mode')
local outcome = nil
if mode then
  if ARGV[3] ~= ARGV[6] then
    outcome = drop_write(KEYS[1], mode, ARGV[3], ARGV[2])
  else
    outcome = drop_read(KEYS[1], mode, KEYS[6], KEYS[7], ARGV[6], ARGV[2])
  end
end
wake_rw_head(KEYS[1], KEYS[2], KEYS[3], KEYS[4], ARGV[1], ARGV[4], nil, 100)
if outcome == nil then
  return nil
end
return latch(KEYS[5], ARGV[7], outcome, ARGV[5])
