-- Helpers every lock script shares: a script is this file followed by its
-- own text (scripts.New), so the re-entry rule and the unlock latch are
-- written once. The read-write lock's own helpers are in rw_hold.lua.

-- Takes one more hold of lock for owner, whose hold count was known to be
-- known before this acquisition, and re-arms lease (milliseconds); free
-- says the lock key does not exist. When the count already is known + 1,
-- the request is a retry of one whose reply was lost: it is not counted
-- twice. Returns the hold count and whether this call added it.
local function take_hold(lock, owner, known, lease, free)
  local holds = 0
  if not free then
    holds = tonumber(redis.call('hget', lock, owner) or '0')
  end
  local added = holds ~= tonumber(known) + 1
  if added then
    holds = redis.call('hincrby', lock, owner, 1)
  end
  redis.call('pexpire', lock, lease)
  return holds, added
end

-- The outcome of an earlier run of the release request whose latch is
-- latch, or nil when there was none.
local function latched(latch)
  local done = redis.call('get', latch)
  if done ~= false then
    return tonumber(done)
  end
  return nil
end

-- Records outcome under latch for ttl milliseconds unless an earlier run
-- of the same release request recorded one: returns that one then, else
-- nil. A first run costs one SET NX; only a retry reads the latch.
local function latch_first(key, outcome, ttl)
  if redis.call('set', key, outcome, 'nx', 'px', ttl) then
    return nil
  end
  return tonumber(redis.call('get', key))
end

-- Records outcome under latch for ttl milliseconds, and returns it.
local function latch(key, outcome, ttl)
  redis.call('set', key, outcome, 'px', ttl)
  return outcome
end

-- Releases one hold of lock by owner: nil when owner holds none; 0 when
-- holds remain (lease re-armed, in milliseconds); 1 when it was the last,
-- and the owner's field is gone. A reentrant lock's hash holds its owner's
-- field alone (alone is true): the last hold deletes the key, as
-- Redisson's unlock does; otherwise the key is left to the caller.
local function drop_hold(lock, owner, lease, alone)
  local holds = redis.call('hget', lock, owner)
  if holds == false then
    return nil
  end
  if tonumber(holds) > 1 then
    redis.call('hincrby', lock, owner, -1)
    redis.call('pexpire', lock, lease)
    return 0
  end
  if alone then
    redis.call('del', lock)
  else
    redis.call('hdel', lock, owner)
  end
  return 1
end
