-- Acquire, re-enter, or wait in line for a fair read-write lock. Prepended
-- with scripts.New's helpers and fair_common.lua.
--
-- The lock hash is Redisson's RReadWriteLock layout; the line is relock's
-- own: a LIST of entries, head first, each a waiter's hash field (its
-- owner id for a reader, '<owner id>:write' for a writer), and a ZSET of
-- their deadlines, as the fair lock keeps them. A writer's turn is at the
-- head; a reader's is when only readers are ahead of it, so consecutive
-- readers go in together, and a reader that comes after a waiting writer
-- waits behind it: writers are not starved by a stream of readers.
--
-- KEYS[1]  lock hash
-- KEYS[2]  queue LIST
-- KEYS[3]  deadline ZSET
-- KEYS[4]  the lock's channel; entry e is woken on KEYS[4] .. ':' .. e
-- KEYS[5]  prefix of this owner's read-timeout keys
-- ARGV[1]  lease in milliseconds
-- ARGV[2]  entry: the owner's field for this side (read or write)
-- ARGV[3]  owner id
-- ARGV[4]  wait timeout in milliseconds: the deadline allowance per place
-- ARGV[5]  'try', 'join' or 'stay', as for the fair lock
-- ARGV[6]  wake-up message
-- ARGV[7]  publish command
-- ARGV[8]  holds of this side the owner had before, as it knows them
--
-- Returns {1, hold count} when the owner holds the side now (re-entry, and
-- a writer's read, never wait for the line); {2, pttl} for a reader asking
-- to write (refused); else {0, pttl, position} (-1 in 'try' mode).
local lock, queue, timeouts, channel = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local lease, entry, owner, wait, how = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4]), ARGV[5]
local writer = entry ~= owner
local now = now_ms()

evict_stale(queue, timeouts, now)
if how == 'stay' and not redis.call('lpos', queue, entry) then
  redis.call('lpush', queue, entry)
  redis.call('zadd', timeouts, now + wait, entry)
end

if not_a_lock(lock) then
  return not_a(lock, 'lock')
end
local mode = redis.call('hget', lock, 'mode')
if mode == false and redis.call('exists', lock) == 1 then
  return not_a(lock, 'read-write lock')
end
if writer then
  if mode == 'write' and redis.call('hexists', lock, entry) == 1 then
    return {1, take_write(lock, mode, entry, ARGV[8], lease)}
  end
  if mode and redis.call('hexists', lock, owner) == 1 then
    return {2, redis.call('pttl', lock)}
  end
elseif redis.call('hexists', lock, owner) == 1 or (mode == 'write' and redis.call('hexists', lock, owner .. ':write') == 1) then
  return {1, take_read(lock, mode, KEYS[5], owner, ARGV[8], lease)}
end

local pos = redis.call('lpos', queue, entry)
local turn = redis.call('llen', queue) == 0
if pos then
  turn = pos == 0
  if pos > 0 and not writer then
    turn = true
    for _, ahead in ipairs(redis.call('lrange', queue, 0, pos - 1)) do
      if string.sub(ahead, -6) == ':write' then
        turn = false
        break
      end
    end
  end
end
local free = mode == false or (mode == 'read' and not writer)
if turn and free then
  if pos then
    redis.call('lrem', queue, 1, entry)
    redis.call('zrem', timeouts, entry)
  end
  if writer then
    return {1, take_write(lock, mode, entry, ARGV[8], lease)}
  end
  local holds = take_read(lock, mode, KEYS[5], owner, ARGV[8], lease)
  -- The reader next in line goes in too.
  wake_rw_head(lock, queue, timeouts, channel, ARGV[6], ARGV[7], nil, 1)
  return {1, holds}
end
-- Waiters whose turn has come (after an eviction just now, or an expiry,
-- which announces nothing) are told, and dead ones taken out of the line.
wake_rw_head(lock, queue, timeouts, channel, ARGV[6], ARGV[7], entry, 100)
if pos then
  pos = redis.call('lpos', queue, entry)
end

local pttl = redis.call('pttl', lock)
if how == 'try' then
  return {0, pttl, -1}
end
if not pos then
  pos = redis.call('rpush', queue, entry) - 1
end
redis.call('zadd', timeouts, now + (pos + 1) * wait, entry)
return {0, pttl, pos}
