-- Acquire, re-enter, or wait in line for a fair lock (Redisson RFairLock
-- layout). Prepended with scripts.New's helpers and fair_common.lua.
--
-- KEYS[1]  lock hash: field = owner id, value = hold count
-- KEYS[2]  queue LIST of waiting owner ids, head = next owner
-- KEYS[3]  deadline ZSET: owner id -> absolute deadline in ms
-- KEYS[4]  unlock channel; owner o is woken on KEYS[4] .. ':' .. o
-- ARGV[1]  lease in milliseconds
-- ARGV[2]  owner id
-- ARGV[3]  wait timeout in milliseconds: the deadline allowance per place
-- ARGV[4]  mode: 'try'  acquire only if no one is waiting ahead; never queue
--                'join' acquire, or join the queue at its tail
--                'stay' like join, for an owner that has been queued all
--                       along: if it is missing, it was evicted as stale
--                       from the head (a pause, or a foreign client's larger
--                       wait timeout), and it goes back to the head
-- ARGV[5]  unlock message
-- ARGV[6]  publish command: "publish" or "spublish"
-- ARGV[7]  holds the owner had before this acquisition, as it knows them
--
-- Returns {1} when the owner now holds the lock (acquired, or re-entered;
-- the lease re-armed either way). Otherwise {0, pttl, position}: the lock's
-- PTTL (-2 when free, -1 when it never expires) and the owner's 0-based
-- place in the queue (-1 in 'try' mode). A queued owner's deadline is set
-- to now + (position + 1) * wait timeout: each attempt keeps it fresh. A
-- re-entry does not count when the hold count already is ARGV[7] + 1: it
-- is a retry of an acquisition whose reply was lost.
local lock, queue, timeouts, channel = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local lease, owner, wait, mode = ARGV[1], ARGV[2], tonumber(ARGV[3]), ARGV[4]
local now = now_ms()

local evicted = evict_stale(queue, timeouts, now)
if mode == 'stay' and not redis.call('lpos', queue, owner) then
  redis.call('lpush', queue, owner)
  redis.call('zadd', timeouts, now + wait, owner)
end

if redis.call('exists', lock) == 0 then
  local head = redis.call('lindex', queue, 0)
  if not head or head == owner then
    if head then
      redis.call('lpop', queue)
      redis.call('zrem', timeouts, owner)
      move_up(timeouts, redis.call('lrange', queue, 0, -1), wait)
    end
    redis.call('hset', lock, owner, 1)
    redis.call('pexpire', lock, lease)
    return {1}
  end
  -- Free, but the head has not claimed it yet. If it inherited the turn
  -- of a waiter evicted just now, the wake-up went to that one: pass it on.
  if evicted then
    wake_head(queue, channel, ARGV[5], ARGV[6], owner)
  end
else
  if redis.call('hexists', lock, owner) == 1 then
    take_hold(lock, owner, ARGV[7], lease, false)
    return {1}
  end
end

local pttl = redis.call('pttl', lock)
if mode == 'try' then
  return {0, pttl, -1}
end
local pos = redis.call('lpos', queue, owner)
if not pos then
  pos = redis.call('rpush', queue, owner) - 1
end
redis.call('zadd', timeouts, now + (pos + 1) * wait, owner)
return {0, pttl, pos}
