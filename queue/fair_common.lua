-- Helpers shared by the fair lock scripts: each script is this file and
-- fair_grant.lua followed by its own text, so they are defined once.
--
-- Deadlines in the ZSET are absolute milliseconds. relock reads the server's
-- clock (TIME), so all relock clients agree on "now"; Redisson clients write
-- deadlines from their own clocks, and the wait timeout absorbs their skew.

-- The server's time in milliseconds.
local function now_ms()
  local t = redis.call('time')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

-- The relock waiters' hash also keeps, under the field CLEAN (no owner id
-- looks like it), how many entries from the head of the queue are known to
-- be relock waiters: a grant then knows in O(1) that no Redisson waiter is
-- queued (shift_all). Only relock's scripts keep it: it may count too few
-- (after a Redisson waiter left, or the hash expired), which costs a grant
-- a scan that sets it right, and it would count too many only after a
-- Redisson client evicted a dead relock waiter from the head.
local CLEAN = '#clean'

-- The number of entries from the head of the queue known to be relock
-- waiters.
local function clean_of(waiters)
  return tonumber(redis.call('hget', waiters, CLEAN) or '0')
end

-- Sets the number of entries known to be relock waiters to n. The field
-- never outlives the relock waiters' marks: it is not written to a hash
-- that has none (nor kept at 0), so it never keeps the hash alive alone
-- past its expiry, nor creates one without an expiry.
local function set_clean(waiters, n)
  if n <= 0 then
    redis.call('hdel', waiters, CLEAN)
  elseif redis.call('exists', waiters) == 1 then
    redis.call('hset', waiters, CLEAN, n)
  end
end

-- Records that the head of the queue left it.
local function head_left(waiters)
  if waiters then
    local clean = clean_of(waiters)
    if clean > 0 then
      set_clean(waiters, clean - 1)
    end
  end
end

-- Moves every deadline delta ms (the order holds); when later, the relock
-- waiters' hash (waiters, when given) lives as much longer.
local function move_all(timeouts, waiters, delta)
  if delta == 0 then
    return
  end
  for _, waiter in ipairs(redis.call('zrange', timeouts, 0, -1)) do
    redis.call('zincrby', timeouts, delta, waiter)
  end
  local ttl = (delta > 0 and waiters) and redis.call('pttl', waiters) or -2
  if ttl > 0 then
    redis.call('pexpire', waiters, ttl + delta)
  end
end

-- The deadline of the head of queue, or nil when there is no head or it
-- has none.
local function head_deadline(queue, timeouts)
  local head = redis.call('lindex', queue, 0)
  return head and tonumber(redis.call('zscore', timeouts, head))
end

-- Keeps the head's deadline (deadline, false when it has none) at least
-- wait ms from now: every deadline moves as much (move_all).
local function keep_fresh(timeouts, waiters, deadline, now, wait)
  if deadline and deadline < now + wait then
    move_all(timeouts, waiters, now + wait - deadline)
  end
end

-- Redisson's stale-waiter rule: while the head of queue has a deadline in
-- timeouts at or before now (or none at all), remove it from both (and
-- from waiters, the relock waiters' hash, when given). The deadlines of
-- the others are left alone. Returns whether it removed any, and the head
-- left (nil when the queue is empty).
--
-- Unless held, with wait, the wait timeout, given: the lock is held (or
-- granted and not yet claimed), so the head waits for a live holder and
-- holds up nobody. Its deadline is then kept at least a wait timeout away
-- (every deadline behind it moves as much, so the order holds, and the
-- relock waiters' hash lives as much longer), and nobody is evicted.
-- Redisson's deadlines never move with time, only one wait timeout earlier
-- at each grant: through a long hold, or a long run of grants, a live
-- waiter's deadline would pass and a script would purge it, a Redisson
-- waiter without a word. A head is evicted only once its turn has come
-- and it does not take it (its deadline, GRACE, or a relock waiter's
-- silence).
local function evict_stale(queue, timeouts, now, waiters, held)
  local evicted = false
  while true do
    local head = redis.call('lindex', queue, 0)
    if not head then
      return evicted, nil
    end
    local deadline = tonumber(redis.call('zscore', timeouts, head))
    if held then
      keep_fresh(timeouts, waiters, deadline, now, held)
      return evicted, head
    end
    if deadline and deadline > now then
      return evicted, head
    end
    redis.call('zrem', timeouts, head)
    redis.call('lpop', queue)
    if waiters then
      redis.call('hdel', waiters, head)
      head_left(waiters)
    end
    evicted = true
  end
end

-- Takes wait milliseconds off the deadline of every owner in list that has
-- one: each has moved up one place in the queue.
local function move_up(timeouts, list, wait)
  for i = 1, #list do
    redis.call('zadd', timeouts, 'XX', 'INCR', -wait, list[i])
  end
end

-- Redisson's grant rule: when an owner takes the lock from the head of the
-- queue, every deadline left moves one wait timeout earlier. It matters to
-- Redisson waiters only (relock waiters are found dead by their silence,
-- and the head refreshes its own deadline), so while every waiter queued
-- is a relock waiter, the deadlines stay as they are: a grant then costs
-- a few commands, not one per waiter. Whether one is queued is known from
-- clean (CLEAN, as the caller read it), or else found by looking past the
-- known part of the queue, a few entries at a time, up to the first that
-- is not a relock waiter's. The lock is held from then on, so the new
-- head waits for a live holder: its deadline moves no nearer than a wait
-- timeout from now (every deadline moving as much). A Redisson waiter
-- chained behind with a shorter wait timeout than this one (its
-- tryLock's wait, which Redisson uses in place of fairLockWaitTimeout)
-- would otherwise be past its deadline at once, and the next Redisson
-- script would purge it without a word. Returns the count of relock
-- waiters known at the head now, for the caller to record (set_clean).
local function shift_all(timeouts, wait, queue, waiters, clean)
  local n = redis.call('llen', queue)
  if clean > n then
    clean = 0 -- not kept by relock alone: look again
  end
  if clean < n then
    local found = n
    for from = clean, n - 1, 50 do
      local ids = redis.call('lrange', queue, from, from + 49)
      local marks = redis.call('hmget', waiters, unpack(ids))
      for j = 1, #marks do
        if not marks[j] then
          found = from + j - 1
          break
        end
      end
      if found < n then
        break
      end
    end
    clean = found
  end
  if clean < n then
    local deadline = head_deadline(queue, timeouts)
    local delta = -wait
    if deadline then
      delta = math.max(delta, now_ms() + wait - deadline)
    end
    move_all(timeouts, waiters, delta)
  end
  return clean
end

-- The latest deadline in timeouts, or nil when there is none: the last
-- waiter's, since deadlines grow in queue order (were one out of order, a
-- newcomer chained behind the latest gets no earlier a deadline than
-- behind the last).
local function latest_deadline(timeouts)
  return tonumber(redis.call('zrange', timeouts, -1, -1, 'WITHSCORES')[2])
end

-- Marks owner, a relock waiter, in waiters with mark ('<lease ms>:<wait
-- id>'), in the same write setting CLEAN to clean when that is given, and
-- keeps the hash no longer than the last deadline (last, when the caller
-- knows it, else the latest in timeouts) plus a wait timeout: entries of
-- waiters a Redisson client evicted do not outlive the queue.
local function mark_waiter(waiters, timeouts, owner, mark, now, wait, clean, last)
  if clean then
    redis.call('hset', waiters, owner, mark, CLEAN, clean)
  else
    redis.call('hset', waiters, owner, mark)
  end
  if not last then
    last = latest_deadline(timeouts)
  end
  local ttl = wait
  if last then
    ttl = math.max(last - now, 0) + wait
  end
  redis.call('pexpire', waiters, math.max(ttl, redis.call('pttl', waiters)))
end

-- Publishes message on channel with publish ('publish' or 'spublish') and
-- reports whether anyone heard it. A command followed by ':uncounted'
-- (queue.Uncounted: waiters that poll instead of listening, or classic
-- pub/sub on a Redis Cluster, where PUBLISH counts only the receivers
-- connected to one node) publishes all the same and, unable to tell,
-- reports that someone heard.
local function tell(publish, channel, message)
  local cmd, counted = publish, true
  if string.sub(publish, -10) == ':uncounted' then
    cmd, counted = string.sub(publish, 1, -11), false
  end
  return redis.call(cmd, channel, message) > 0 or not counted, cmd
end

-- Tells the waiter entry its turn: publishes message on its own channel,
-- channel .. ':' .. entry, and reports whether anyone heard it (tell).
-- Onlookers (relock watch) hear of the turn as 'turn:<entry>' on relock's
-- turn channel of the lock, relock_turns:{name} (keys.TurnChannel: the
-- lock's channel with relock's prefix; neither channel prefix holds a
-- ':'), where no Redisson client listens (Redisson decodes its lock
-- channels as numbers) and no waiter either, so that listening there does
-- not make a dead waiter look alive.
local function announce(publish, channel, entry, message)
  local heard, cmd = tell(publish, channel .. ':' .. entry, message)
  redis.call(cmd, 'relock_turns' .. string.sub(channel, (string.find(channel, ':', 1, true))), 'turn:' .. entry)
  return heard
end

-- Wakes the waiters of a read-write lock's line whose turn has come,
-- unless one is skip, each on its own channel channel .. ':' .. entry: a
-- writer at the head when the lock is free; when it is free or read, the
-- readers at the head, up to the first writer, looking at most most
-- entries (the others follow as these take the lock). A waiter nobody
-- listens to any more (its process died) is taken out of the line
-- (queue, timeouts) and the turn goes on past it. A writer's entry ends
-- with ':write'.
local function wake_rw_head(lock, queue, timeouts, channel, message, publish, skip, most)
  local mode = redis.call('hget', lock, 'mode')
  if mode == 'write' then
    return
  end
  local ahead = false
  for _, entry in ipairs(redis.call('lrange', queue, 0, most - 1)) do
    local writer = string.sub(entry, -6) == ':write'
    if writer and (ahead or mode ~= false) then
      return
    end
    if entry == skip or announce(publish, channel, entry, message) then
      if writer then
        return
      end
      ahead = true
    else
      redis.call('lrem', queue, 1, entry)
      redis.call('zrem', timeouts, entry)
    end
  end
end
