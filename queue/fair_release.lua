-- Release one hold of a fair lock. Prepended with scripts.New's helpers
-- and fair_common.lua.
--
-- KEYS[1]  lock hash
-- KEYS[2]  queue LIST
-- KEYS[3]  deadline ZSET
-- KEYS[4]  unlock channel
-- KEYS[5]  relock waiters HASH
-- KEYS[6]  the owner's unlock latch
-- ARGV[1]  unlock message
-- ARGV[2]  lease in milliseconds, re-armed while holds remain
-- ARGV[3]  owner id
-- ARGV[4]  publish command
-- ARGV[5]  latch time to live in milliseconds
-- ARGV[6]  wait timeout in milliseconds
-- ARGV[7]  this request's number among the owner's release requests
-- ARGV[8]  the owner's hold count, as it knows it
--
-- Returns nil when the owner does not hold the lock (when the lock is
-- gone altogether, stale waiters are evicted from the head and the turn
-- passes to the head all the same, as Redisson does: an expired lock
-- announces nothing; while another holds it, the head's deadline is kept
-- fresh: evict_stale); 0 when holds remain (lease re-armed, the head's
-- deadline kept fresh); 1 when this was the last hold: the key is deleted
-- (the owner's field is its only one), and the turn passes to the head
-- (grant_next: a relock waiter is granted the lock at once, a Redisson
-- waiter is woken with its deadline kept fresh; a relock head refreshes
-- its own while it waits, and the waiters behind it keep their distance).
-- When the turn went to a relock waiter, granted the lock, the reply is
-- {1, its owner id, the grant message it was told}, so that its process
-- may tell that wait at once. The latch, or for a release that leaves
-- holds the hold count, records the request (release_once), so a retry of
-- it gets the same answer (1, without the owner) and releases nothing
-- twice.
local wait = tonumber(ARGV[6])
local outcome, now = release_once(KEYS[1], ARGV[3], ARGV[8], ARGV[2], KEYS[6], ARGV[7], ARGV[5], 1)
if outcome == nil then
  local held
  if redis.call('exists', KEYS[1]) == 1 then
    held = wait
  end
  evict_stale(KEYS[2], KEYS[3], now_ms(), KEYS[5], held)
  if not held then
    grant_next(KEYS[1], KEYS[2], KEYS[3], KEYS[5], KEYS[4], ARGV[1], ARGV[4], wait)
  end
  return nil
end
if outcome == 0 then
  evict_stale(KEYS[2], KEYS[3], now_ms(), KEYS[5], wait)
elseif now then
  -- The mark of a grant the owner did not claim goes with its hold.
  redis.call('hdel', KEYS[5], ARGV[3])
  local granted, told = grant_next(KEYS[1], KEYS[2], KEYS[3], KEYS[5], KEYS[4], ARGV[1], ARGV[4], wait)
  if granted then
    return {outcome, granted, told}
  end
end
return outcome
