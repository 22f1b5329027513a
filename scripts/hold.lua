-- Helpers every lock script shares: a script is this file and
-- release_once.lua followed by its own text (scripts.New), so the re-entry
-- rule and the unlock latch are written once; the reentrant lock's scripts
-- take only the file they call. The read-write lock's own helpers are in
-- rw_hold.lua.

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
