-- Acquire, re-enter, or wait in line for a fair lock (Redisson RFairLock
-- layout). Prepended with scripts.New's helpers and fair_common.lua.
--
-- KEYS[1]  lock hash: field = owner id, value = hold count
-- KEYS[2]  queue LIST of waiting owner ids, head = next owner
-- KEYS[3]  deadline ZSET: owner id -> absolute deadline in ms
-- KEYS[4]  unlock channel; owner o is woken on KEYS[4] .. ':' .. o
-- KEYS[5]  relock waiters HASH: owner id -> '<lease ms>:<wait id>', or
--          'granted'
-- ARGV[1]  lease in milliseconds
-- ARGV[2]  owner id
-- ARGV[3]  wait timeout in milliseconds
-- ARGV[4]  mode: 'try'  acquire only if no one is waiting ahead; never queue
--                'join' acquire, or join the queue at its tail
--                'stay' like join, for an owner that has been queued all
--                       along: if it is missing, it was evicted as stale
--                       from the head (a pause, or a Redisson client's
--                       script), and it goes back to the head
--                'claim' for an owner told by a grant message that it
--                       holds the lock: confirm the grant and re-arm the
--                       lease; never queue nor take a free lock
-- ARGV[5]  unlock message
-- ARGV[6]  publish command: "publish" or "spublish"
-- ARGV[7]  holds the owner had before this acquisition, as it knows them
-- ARGV[8]  the wait id of a queued owner: a grant tells it '-<id>'
--
-- Returns {1} when the owner now holds the lock: acquired, claimed after a
-- release granted it (grant_next), or re-entered; the lease is re-armed
-- either way. Otherwise {0, pttl, position}: the lock's PTTL (-2 when
-- free, -1 when it never expires; when it is free and a relock head has
-- yet to take it, that head's lease instead, the longest it may then keep
-- it without a word) and the owner's 0-based place in the queue (-1 in
-- 'try' mode).
--
-- Deadlines are Redisson's: a newcomer's is the last waiter's deadline
-- (or, with nobody queued, now plus the lock's PTTL) plus the wait
-- timeout, and every grant takes a wait timeout off all of them (while a
-- Redisson waiter is queued: shift_all), so they grow in queue order
-- whichever client queued. Only the head refreshes
-- its own: when its deadline is less than a wait timeout away, it moves
-- to now + wait timeout, and every deadline behind it moves as much, so
-- the order holds. A re-entry does not count when the hold count already
-- is ARGV[7] + 1: it is a retry of an acquisition whose reply was lost.
local lock, queue, timeouts, channel, waiters = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local lease, owner, wait, mode = ARGV[1], ARGV[2], tonumber(ARGV[3]), ARGV[4]
local mark = lease .. ':' .. ARGV[8]

-- How often a join that finds relock waiters queued already keeps their
-- hash long enough (mark_waiter): at the first one's, and then about every
-- KEEP_EVERY-th join, those whose deadline is a multiple of KEEP_EVERY
-- wait timeouts when counted in wait timeouts (successive joins' deadlines
-- are a wait timeout apart). Between two, the hash lives at least a wait
-- timeout past the last kept one's deadline; a hash kept too short only
-- costs its waiters a wake-up instead of a grant (a waiter with no mark is
-- told its turn as Redisson's are), and the next first join keeps it
-- again.
local KEEP_EVERY = 8

-- A join while another owner holds the lock changes no turn: the owner
-- queues at the tail behind whoever waits, with Redisson's deadline (the
-- last waiter's plus the wait timeout; with none, now plus the lock's
-- PTTL and the wait timeout), and learns its place. The stale heads are
-- left to the script that next gives a turn (a release, or an attempt
-- that finds the lock free), which evicts them first; so the common join
-- reads no clock. Returns nil, having changed nothing, when the owner has
-- a deadline already (a join resent after its reply was lost): the full
-- path below finds its place.
local function join_held(pttl)
  local now
  local deadline = latest_deadline(timeouts)
  if deadline then
    deadline = deadline + wait
  else
    now = now_ms()
    deadline = math.max(pttl, 0) + wait + now
  end
  if redis.call('zadd', timeouts, 'NX', deadline, owner) == 0 then
    return nil
  end
  local pos = redis.call('rpush', queue, owner) - 1
  local known = clean_of(waiters)
  local clean
  if known == pos then
    clean = pos + 1
  end
  if known == 0 or wait <= 0 or math.floor(deadline / wait) % KEEP_EVERY == 0 then
    mark_waiter(waiters, timeouts, owner, mark, now or now_ms(), wait, clean, deadline)
  elseif clean then
    redis.call('hset', waiters, owner, mark, CLEAN, clean)
  else
    redis.call('hset', waiters, owner, mark)
  end
  return {0, pttl, pos}
end

if mode == 'claim' then
  if redis.call('hget', waiters, owner) == 'granted' then
    redis.call('hdel', waiters, owner)
    if redis.call('hexists', lock, owner) == 1 then
      redis.call('pexpire', lock, lease)
      return {1}
    end
  end
  return {0, redis.call('pttl', lock), -1}
end

local kv = hash_of(lock)
if kv == nil or no_lock_fields(kv) then
  return not_a(lock, 'lock')
end
local mine = field_of(kv, owner) ~= false
local pttl = redis.call('pttl', lock)
if mode == 'join' and pttl ~= -2 and not mine then
  local queued = join_held(pttl)
  if queued then
    return queued
  end
end

local now = now_ms()
local held
if pttl ~= -2 then
  held = wait
end
local _, head = evict_stale(queue, timeouts, now, waiters, held)
if mode == 'stay' and not redis.call('lpos', queue, owner) and redis.call('hget', waiters, owner) ~= 'granted'
    and not mine then
  -- (An owner that holds the lock, taken by another of its goroutines,
  -- re-enters it below instead.)
  -- Back to the head, with a deadline no later than the next one's.
  local deadline = now + wait
  if head then
    deadline = math.min(deadline, tonumber(redis.call('zscore', timeouts, head) or deadline))
  end
  redis.call('lpush', queue, owner)
  redis.call('zadd', timeouts, deadline, owner)
  mark_waiter(waiters, timeouts, owner, mark, now, wait, clean_of(waiters) + 1)
  head = owner
end

-- (Nothing above changed the lock since its PTTL and fields were read.)
if pttl == -2 then
  if not head or head == owner then
    if head then
      redis.call('lpop', queue)
      redis.call('zrem', timeouts, owner)
      local clean = clean_of(waiters)
      set_clean(waiters, shift_all(timeouts, wait, queue, waiters, math.max(clean - 1, 0)))
    end
    redis.call('hdel', waiters, owner)
    redis.call('hset', lock, owner, 1)
    redis.call('pexpire', lock, lease)
    return {1}
  end
  -- Free, but the head has not claimed it: its turn may have come with
  -- an expiry (which announces nothing) or an eviction just now, or it
  -- died. Pass the turn on again: a live relock head is granted the lock,
  -- a dead one evicted, a Redisson head woken.
  if grant_next(lock, queue, timeouts, waiters, channel, ARGV[5], ARGV[6], wait) == owner then
    redis.call('hdel', waiters, owner)
    return {1}
  end
  pttl = redis.call('pttl', lock)
elseif mine then
  if ARGV[7] == '0' and redis.call('hget', waiters, owner) == 'granted' then
    -- Claims the lock a release granted it. (An owner that knows it holds
    -- the lock re-enters it: a grant it took without a claim keeps its
    -- mark until its release.)
    redis.call('hdel', waiters, owner)
    redis.call('pexpire', lock, lease)
  else
    take_hold(lock, owner, ARGV[7], lease, false)
  end
  return {1}
end

if mode == 'try' then
  return {0, pttl, -1}
end
local pos = redis.call('lpos', queue, owner)
if not pos then
  -- Redisson's rule, chained behind the last waiter.
  local deadline = latest_deadline(timeouts)
  if deadline then
    deadline = deadline + wait
  else
    deadline = math.max(pttl, 0) + wait + now
  end
  redis.call('zadd', timeouts, deadline, owner)
  pos = redis.call('rpush', queue, owner) - 1
  local clean
  if clean_of(waiters) == pos then
    clean = pos + 1
  end
  mark_waiter(waiters, timeouts, owner, mark, now, wait, clean, deadline)
elseif pos == 0 then
  local deadline = tonumber(redis.call('zscore', timeouts, owner) or now)
  if deadline < now + wait then
    -- The head refreshes its deadline; those behind keep their distance.
    move_all(timeouts, nil, now + wait - deadline)
    mark_waiter(waiters, timeouts, owner, mark, now, wait)
  end
end
if pttl == -2 and pos > 0 then
  -- Free, and the head has not taken it yet: it may take it and die, which
  -- nobody announces. A relock head's lease (its mark) bounds how long the
  -- lock can then stay taken: the waiter sleeps no longer.
  local head_mark = redis.call('hget', waiters, redis.call('lindex', queue, 0))
  local head_lease = head_mark and tonumber(string.match(head_mark, '^(%d+):'))
  if head_lease then
    pttl = head_lease
  end
end
return {0, pttl, pos}
