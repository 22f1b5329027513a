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

-- Releases one hold of lock, a reentrant lock's hash (its owner's field is
-- its only one), for owner's release request whose latch is latch, at most
-- once: returns the outcome and true when this run applied it, 0 when
-- holds remain (lease re-armed, in milliseconds) or last when this was the
-- last hold (the key deleted, as Redisson's unlock does; the caller does
-- what follows, and last is what the latch keeps); the outcome an earlier
-- run of the request recorded and false; or nil when owner holds none and
-- no run of the request released it. The latch is written (ttl
-- milliseconds) before the lock changes, and read only when the owner's
-- field is gone or the write finds an earlier run's.
local function release_once(lock, owner, lease, latch, ttl, last)
  local holds = redis.call('hget', lock, owner)
  if holds == false then
    return latched(latch), false
  end
  local outcome = 0
  if tonumber(holds) <= 1 then
    outcome = last
  end
  local done = latch_first(latch, outcome, ttl)
  if done then
    return done, false
  end
  if outcome == 0 then
    redis.call('hincrby', lock, owner, -1)
    redis.call('pexpire', lock, lease)
  else
    redis.call('del', lock)
  end
  return outcome, true
end
