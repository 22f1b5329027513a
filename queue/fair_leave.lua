-- Leave a fair lock's queue: a waiter gives up. Prepended with scripts.New's
-- helpers and fair_common.lua.
--
-- KEYS[1]  lock hash
-- KEYS[2]  queue LIST
-- KEYS[3]  deadline ZSET
-- KEYS[4]  unlock channel
-- KEYS[5]  relock waiters HASH
-- ARGV[1]  owner id
-- ARGV[2]  wait timeout in milliseconds
-- ARGV[3]  unlock message
-- ARGV[4]  publish command
--
-- Removes the owner from the LIST and the ZSET and takes one wait timeout off
-- the deadline of every waiter behind it, as Redisson does. If the owner was
-- the head of a free lock, the turn passes on; of a held one, the new
-- head's deadline stays at least a wait timeout away. A release that
-- granted the owner the lock it no longer waits for is undone: the hold is
-- dropped and the turn passes on. Returns 1 when the owner was queued or
-- granted, else 0.
local wait = tonumber(ARGV[2])
local mark = redis.call('hget', KEYS[5], ARGV[1])
redis.call('hdel', KEYS[5], ARGV[1])
if mark == 'granted' then
  if redis.call('hget', KEYS[1], ARGV[1]) == '1' then
    redis.call('hdel', KEYS[1], ARGV[1])
    if redis.call('exists', KEYS[1]) == 0 then
      grant_next(KEYS[1], KEYS[2], KEYS[3], KEYS[5], KEYS[4], ARGV[3], ARGV[4], wait)
    end
  end
  return 1
end
local pos = redis.call('lpos', KEYS[2], ARGV[1])
if not pos then
  return 0
end
move_up(KEYS[3], redis.call('lrange', KEYS[2], pos + 1, -1), wait)
redis.call('zrem', KEYS[3], ARGV[1])
redis.call('lrem', KEYS[2], 0, ARGV[1])
local clean = clean_of(KEYS[5])
if pos < clean then
  set_clean(KEYS[5], clean - 1)
end
if pos == 0 then
  if redis.call('exists', KEYS[1]) == 0 then
    grant_next(KEYS[1], KEYS[2], KEYS[3], KEYS[5], KEYS[4], ARGV[3], ARGV[4], wait)
  else
    -- The new head waits for a live holder: its deadline, a wait timeout
    -- earlier now, stays at least a wait timeout away (shift_all).
    local deadline = head_deadline(KEYS[2], KEYS[3])
    if deadline then
      keep_fresh(KEYS[3], KEYS[5], deadline, now_ms(), wait)
    end
  end
end
return 1
