-- The unlock latch and the once-only release every lock script that
-- releases shares: part of the helpers scripts.New puts before a script
-- (after hold.lua).

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
-- changes, and the latch is read only when the count is not the known one.
-- (A reentrant lock's last release is first sent bare, release_bare.lua,
-- with no latch; a run of this script that finds no hold and no latch may
-- follow one, and the owner tells what happened: see scripts.Unlock.Bare.)
local function release_once(lock, owner, known, lease, latchkey, seq, ttl, last)
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
  if outcome ~= 0 or not counted then
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
