-- The fair lock scripts' grant: who gets the turn after a release, and how
-- a Redisson head that nobody heard keeps it for a grace, then is evicted.
-- Loaded after fair_common.lua, whose helpers it uses; fair_common.lua's
-- wake_rw_head is independent of it.

-- How long (ms) a Redisson head that nobody heard keeps its turn, from when
-- a relock script first found it so: Redisson queues a waiter first and
-- subscribes to its channel after (a round trip later, more over a slow
-- link), and a Redisson client whose pub/sub connection dropped is deaf
-- until it has reconnected and subscribed again. A head still unheard
-- after that is taken for dead and evicted, if someone waits behind it.
local GRACE = 3000

-- Fields of the relock waiters' hash beside the marks (no owner id looks
-- like them): UNHEARD is '<head>|<its deadline>|<ms when first found
-- unheard>' for the Redisson head nobody heard; EVICTED the owners of the
-- Redisson heads evicted unheard, newest first, one per line (at most
-- MAX_EVICTED), told of every turn given until one hears it.
local UNHEARD, EVICTED, MAX_EVICTED = '#unheard', '#evicted', 8

-- Sets field of waiters to value and keeps the hash at least ttl ms.
local function keep_field(waiters, field, value, ttl)
  redis.call('hset', waiters, field, value)
  if redis.call('pttl', waiters) < ttl then
    redis.call('pexpire', waiters, ttl)
  end
end

-- Reports whether head, a Redisson waiter at the head of the queue whose
-- turn nobody heard, keeps its turn (GRACE from when it was first found
-- unheard at the head; its deadline, fixed while it stays there, tells a
-- later queueing of the same owner apart), and whether it was found
-- unheard just now.
local function keeps_turn(waiters, timeouts, head, now, wait)
  local tag = head .. '|' .. (redis.call('zscore', timeouts, head) or '') .. '|'
  local seen = redis.call('hget', waiters, UNHEARD)
  if seen and string.sub(seen, 1, #tag) == tag then
    return now - tonumber(string.sub(seen, #tag + 1)) < GRACE, false
  end
  keep_field(waiters, UNHEARD, tag .. now, GRACE + wait)
  return true, true
end

-- Records that owner, a Redisson head, was evicted unheard: it may be
-- alive (deaf for longer than GRACE), and then it sleeps until its own
-- timeout unless told something. wake_evicted tells it.
local function remember_evicted(waiters, owner, wait)
  local kept = {owner}
  for e in string.gmatch(redis.call('hget', waiters, EVICTED) or '', '[^\n]+') do
    if e ~= owner and #kept < MAX_EVICTED then
      kept[#kept + 1] = e
    end
  end
  keep_field(waiters, EVICTED, table.concat(kept, '\n'), wait)
end

-- Tells the Redisson waiters evicted unheard (EVICTED) that a turn was
-- given, with the unlock message on each one's channel: one that listens
-- again retries its acquisition and queues anew (at the tail: it lost its
-- place), and is forgotten; the others stay listed. list is the field's
-- value when the caller read it (false: none), nil when it did not.
local function wake_evicted(waiters, channel, message, publish, list)
  if list == nil then
    list = redis.call('hget', waiters, EVICTED)
  end
  if not list then
    return
  end
  local kept, n = {}, 0
  for e in string.gmatch(list, '[^\n]+') do
    n = n + 1
    if not tell(publish, channel .. ':' .. e, message) then
      kept[#kept + 1] = e
    end
  end
  if #kept == 0 then
    redis.call('hdel', waiters, EVICTED)
  elseif #kept < n then
    redis.call('hset', waiters, EVICTED, table.concat(kept, '\n'))
  end
end

-- Gives the turn of the free lock to the head of the queue, telling it on
-- its own channel. The head is popped first, the common case (a relock
-- waiter granted, or a dead one evicted) needing it gone, and pushed back
-- when it keeps its place.
--
--   - A relock waiter (marked in waiters with '<lease>:<wait id>') is
--     granted the lock right here: its field is written with one hold, its
--     lease set, it leaves the queue as an owner taking the lock would
--     (Redisson's grant rule), it is marked 'granted' until it claims the
--     lock or releases it, and the message it hears is '-<wait id>' (a
--     number, as on every channel of Redisson's layout), which tells that
--     wait it holds the lock. A relock waiter listens on its channel
--     before it queues: one nobody hears is dead, evicted at once, and the
--     next one gets the turn.
--   - A Redisson waiter hears message and takes the lock with its own
--     script; its deadline is kept at least a wait timeout away
--     (keep_fresh), so that the script does not purge it. One nobody
--     hears keeps its turn for GRACE (keeps_turn); the first time it is
--     found unheard, the next in line is told too, so that it comes back
--     to check. After GRACE it is evicted if someone waits behind it
--     (else it holds up nobody), remembered (remember_evicted), and the
--     next one gets the turn.
--
-- Every turn given tells the Redisson waiters evicted unheard before
-- (wake_evicted). Returns the owner granted the lock, if any, and the
-- grant message it was told.
local function grant_next(lock, queue, timeouts, waiters, channel, message, publish, wait)
  local now, evicted
  while true do
    local head = redis.call('lpop', queue)
    if not head then
      wake_evicted(waiters, channel, message, publish, evicted)
      return nil
    end
    local found = redis.call('hmget', waiters, head, CLEAN, EVICTED)
    local mark, clean = found[1], tonumber(found[2] or '0')
    evicted = found[3]
    local lease, id
    if mark and mark ~= 'granted' then
      lease, id = string.match(mark, '^(%d+):(.+)$')
    end
    local tell_head = message
    if id then
      tell_head = '-' .. id
    end
    local heard = announce(publish, channel, head, tell_head)
    if heard and not lease then
      -- A Redisson head takes the lock with its own script, which first
      -- purges the heads whose deadline passed: its own must not have.
      now = now or now_ms()
      redis.call('lpush', queue, head)
      keep_fresh(timeouts, waiters, tonumber(redis.call('zscore', timeouts, head)), now, wait)
      redis.call('hdel', waiters, UNHEARD)
      wake_evicted(waiters, channel, message, publish, evicted)
      return nil
    end
    if not heard and not mark then
      now = now or now_ms()
      local keeps, first = keeps_turn(waiters, timeouts, head, now, wait)
      local next = redis.call('lindex', queue, 0)
      if first and next then
        tell(publish, channel .. ':' .. next, message)
      end
      if keeps or not next then
        redis.call('lpush', queue, head)
        return nil
      end
      redis.call('hdel', waiters, UNHEARD)
      remember_evicted(waiters, head, wait)
    end
    redis.call('zrem', timeouts, head)
    if heard then
      local left = shift_all(timeouts, wait, queue, waiters, math.max(clean - 1, 0))
      redis.call('hset', lock, head, 1)
      redis.call('pexpire', lock, lease)
      -- The mark and the count of relock waiters at the head, in one write
      -- (the hash exists: it holds the mark).
      if left > 0 then
        redis.call('hset', waiters, head, 'granted', CLEAN, left)
      else
        redis.call('hset', waiters, head, 'granted')
        if clean > 0 then
          redis.call('hdel', waiters, CLEAN)
        end
      end
      wake_evicted(waiters, channel, message, publish, evicted)
      return head, tell_head
    end
    redis.call('hdel', waiters, head)
    head_left(waiters)
    -- (EVICTED may have changed: the next turn reads it again.)
    evicted = nil
  end
end
