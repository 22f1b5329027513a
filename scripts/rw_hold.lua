-- Helpers of the read-write lock scripts (scripts.NewRW: hold.lua, this
-- file, then the script's own text).
--
-- Read-write locks (Redisson's RReadWriteLock layout): field 'mode' is
-- 'read' or 'write'; a reader's field is its owner id, valued its hold
-- count, each of its holds n leased by the key timeouts .. ':' .. n; the
-- writer's field is '<owner id>:write'.

-- Whether owner may read now: the lock is free or read, or owner writes
-- it (whose write field is wfield).
local function may_read(lock, mode, wfield)
  return mode == false or mode == 'read' or redis.call('hexists', lock, wfield) == 1
end

-- Takes one more read hold of lock for owner (see take_hold for known),
-- leased lease milliseconds by its own timeout key; the hash lives as
-- long as its longest lease. mode is the lock's mode before. Returns the
-- owner's read hold count.
local function take_read(lock, mode, timeouts, owner, known, lease)
  if mode == false then
    redis.call('hset', lock, 'mode', 'read')
  end
  local holds = tonumber(redis.call('hget', lock, owner) or '0')
  if holds ~= tonumber(known) + 1 then
    holds = redis.call('hincrby', lock, owner, 1)
  end
  redis.call('set', timeouts .. ':' .. holds, 1, 'px', lease)
  redis.call('pexpire', lock, math.max(redis.call('pttl', lock), tonumber(lease)))
  return holds
end

-- Takes one more write hold of lock under wfield, which must be free or
-- written by that field (mode is the lock's mode before). Returns the hold
-- count.
local function take_write(lock, mode, wfield, known, lease)
  if mode == false then
    redis.call('hset', lock, 'mode', 'write')
  end
  return (take_hold(lock, wfield, known, lease, mode == false))
end

-- Releases one read hold of owner: nil when it holds none, else 0 when it
-- holds more (their leases re-armed to lease) or 1 when this was its last;
-- and whether the lock is now gone (no reader's lease left and no writer:
-- deleted). base .. ':' .. field .. ':rwlock_timeout' is any reader's
-- timeouts prefix.
local function drop_read(lock, mode, timeouts, base, owner, lease)
  if redis.call('hexists', lock, owner) == 0 then
    return nil, false
  end
  local left = redis.call('hincrby', lock, owner, -1)
  redis.call('del', timeouts .. ':' .. (left + 1))
  local outcome = 0
  if left == 0 then
    redis.call('hdel', lock, owner)
    outcome = 1
  end
  for i = 1, left do
    redis.call('pexpire', timeouts .. ':' .. i, lease)
  end
  if redis.call('hlen', lock) > 1 then
    local longest = -3
    for _, field in ipairs(redis.call('hkeys', lock)) do
      local n = tonumber(redis.call('hget', lock, field))
      if n then
        for i = n, 1, -1 do
          longest = math.max(longest, redis.call('pttl', base .. ':' .. field .. ':rwlock_timeout:' .. i))
        end
      end
    end
    if longest > 0 then
      redis.call('pexpire', lock, longest)
      return outcome, false
    end
    if mode == 'write' then
      return outcome, false
    end
  end
  redis.call('del', lock)
  return outcome, true
end

-- Releases one hold of lock by owner: nil when owner holds none; 0 when
-- holds remain (lease re-armed, in milliseconds); 1 when it was the last,
-- and the owner's field is gone (the key is left to the caller).
local function drop_hold(lock, owner, lease)
  local holds = redis.call('hget', lock, owner)
  if holds == false then
    return nil
  end
  if tonumber(holds) > 1 then
    redis.call('hincrby', lock, owner, -1)
    redis.call('pexpire', lock, lease)
    return 0
  end
  redis.call('hdel', lock, owner)
  return 1
end

-- Releases one write hold under wfield: nil when it holds none, else 0
-- (holds remain, lease re-armed) or 1 (the last: the lock is deleted, or
-- turned into a read lock when its writer also reads).
local function drop_write(lock, mode, wfield, lease)
  if mode ~= 'write' then
    return nil
  end
  local outcome = drop_hold(lock, wfield, lease)
  if outcome == 1 then
    if redis.call('hlen', lock) == 1 then
      redis.call('del', lock)
    else
      redis.call('hset', lock, 'mode', 'read')
    end
  end
  return outcome
end
