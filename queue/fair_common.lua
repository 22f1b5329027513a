-- Helpers shared by the fair lock scripts: each script is this file followed
-- by its own text, so they are defined once.
--
-- Deadlines in the ZSET are absolute milliseconds. relock reads the server's
-- clock (TIME), so all relock clients agree on "now"; Redisson clients write
-- deadlines from their own clocks, and the wait timeout absorbs their skew.

-- The server's time in milliseconds.
local function now_ms()
  local t = redis.call('time')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

-- Redisson's stale-waiter rule: while the head of queue has a deadline in
-- timeouts at or before now (or none at all), remove it from both. The
-- deadlines of the others are left alone. Returns whether it removed any.
local function evict_stale(queue, timeouts, now)
  local evicted = false
  while true do
    local head = redis.call('lindex', queue, 0)
    if not head then
      return evicted
    end
    local deadline = tonumber(redis.call('zscore', timeouts, head))
    if deadline and deadline > now then
      return evicted
    end
    redis.call('zrem', timeouts, head)
    redis.call('lpop', queue)
    evicted = true
  end
end

-- Wakes the head waiter, unless it is skip, on its own channel
-- channel .. ':' .. head.
local function wake_head(queue, channel, message, publish, skip)
  local head = redis.call('lindex', queue, 0)
  if head and head ~= skip then
    redis.call(publish, channel .. ':' .. head, message)
  end
end

-- Takes wait milliseconds off the deadline of every owner in list that has
-- one: each has moved up one place in the queue.
local function move_up(timeouts, list, wait)
  for i = 1, #list do
    redis.call('zadd', timeouts, 'XX', 'INCR', -wait, list[i])
  end
end

-- Wakes the waiters of a read-write lock's line whose turn has come,
-- unless one is skip, each on its own channel channel .. ':' .. entry: a
-- writer at the head when the lock is free; when it is free or read, the
-- readers at the head, up to the first writer, at most most of them (the
-- others follow as these take the lock). A writer's entry ends with
-- ':write'.
local function wake_rw_head(lock, queue, channel, message, publish, skip, most)
  local mode = redis.call('hget', lock, 'mode')
  if mode == 'write' then
    return
  end
  for i, entry in ipairs(redis.call('lrange', queue, 0, most - 1)) do
    local writer = string.sub(entry, -6) == ':write'
    if writer and (i > 1 or mode ~= false) then
      return
    end
    if entry ~= skip then
      redis.call(publish, channel .. ':' .. entry, message)
    end
    if writer then
      return
    end
  end
end
