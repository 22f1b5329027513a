-- Helpers every lock script shares: a script is this file followed by its
-- own text (scripts.New), so the re-entry rule and the unlock latch are
-- written once. The read-write lock's own helpers are in rw_hold.lua.

-- The error a script returns for a key that is not a lock (not_a_lock);
-- its WRONGTYPE prefix is Redis's own for a key of the wrong type.
local NOT_A_LOCK = 'WRONGTYPE the key holds a value that is not a lock in Redisson\'s layout'

-- Whether lock holds a value that is not a lock in Redisson's layout:
-- a key of another type, or a hash that is not owner fields valued
-- positive hold counts, with at most a read-write lock's 'mode' field,
-- 'read' or 'write'. A missing key is no value at all. (rlock's
-- isLockHash checks the same, and the owner ids' shape too.) Run
-- where an acquisition finds the lock not its own, so that a hash that is
-- no lock fails at once instead of being waited for.
local function not_a_lock(lock)
  local t = redis.call('type', lock)
  if type(t) == 'table' then
    t = t.ok
  end
  if t == 'none' then
    return false
  end
  if t ~= 'hash' then
    return true
  end
  local kv = redis.call('hgetall', lock)
  local owners = 0
  for i = 1, #kv, 2 do
    local field, value = kv[i], kv[i + 1]
    if field == 'mode' then
      if value ~= 'read' and value ~= 'write' then
        return true
      end
    elseif string.match(value, '^[1-9]%d*$') then
      owners = owners + 1
    else
      return true
    end
  end
  return owners == 0
end

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

-- The outcome that release request seq recorded in latch, its owner's
-- unlock latch, or nil when the request recorded none. A latch holds
-- "<seq>:<outcome>" of the owner's latest request, so an owner has one
-- latch key, not one per request.
local function latched(latch, seq)
  local rec = redis.call('get', latch)
  if rec then
    local s, outcome = string.match(rec, '^(%d+):(%d+)$')
    if s == seq then
      return tonumber(outcome)
    end
  end
  return nil
end

-- Records outcome as that of release request seq in latch, kept ttl
-- milliseconds, and returns it.
local function latch(key, seq, outcome, ttl)
  redis.call('set', key, seq .. ':' .. outcome, 'px', ttl)
  return outcome
end

-- Releases one hold of lock, a reentrant lock's hash (its owner's field is
-- its only one), for owner's release request seq, whose latch is latch, at
-- most once: returns the outcome and true when this run applied it, 0 when
-- holds remain (lease re-armed, in milliseconds) or last when this was the
-- last hold (the key deleted, as Redisson's unlock does; the caller does
-- what follows, and last is what the latch keeps); the outcome an earlier
-- run of the request recorded and false; or nil when owner holds none and
-- no run of the request released it.
--
-- known is the hold count the owner knows ('0': it knows none). While
-- Redis has that count, no run of the request has applied it. A release
-- that leaves holds and finds that count needs no latch: the count is the
-- record, since only the owner changes it and one request at a time, so a
-- run that finds one hold less knows that an earlier one took it. (Should
-- the owner's count be one too high, that is how the two agree again.)
-- Any other release latches its outcome (ttl milliseconds) before the lock
-- changes, and the latch is read only when the count is not the known one,
-- except a bare request's (bare true): one sent once, that go-redis does
-- not resend, which finds the known count and so is the request's first
-- run; it writes no latch, and a later run of the request that finds no
-- hold and no latch leaves the owner to tell whether that first run
-- released it (the caller's rule, in the release scripts' headers).
local function release_once(lock, owner, known, lease, latchkey, seq, ttl, last, bare)
  local holds = redis.call('hget', lock, owner)
  local counted = holds == known
  if not counted then
    local done = latched(latchkey, seq)
    if done then
      return done, false
    end
    if holds == false then
      return nil, false
    end
    if tonumber(holds) == tonumber(known) - 1 then
      return 0, false
    end
  end
  local outcome = 0
  if tonumber(holds) <= 1 then
    outcome = last
  end
  if not counted or (outcome ~= 0 and not bare) then
    latch(latchkey, seq, outcome, ttl)
  end
  if outcome == 0 then
    redis.call('hincrby', lock, owner, -1)
    redis.call('pexpire', lock, lease)
  else
    redis.call('del', lock)
  end
  return outcome, true
end
