-- Release one hold of a reentrant lock, at most once per request.
--
-- KEYS[1]  lock hash
-- KEYS[2]  unlock channel
-- KEYS[3]  the owner's unlock latch (Redisson's redisson_unlock_latch
--          layout, named after the owner, not the request)
-- ARGV[1]  unlock message
-- ARGV[2]  lease in milliseconds, re-armed while holds remain
-- ARGV[3]  owner id
-- ARGV[4]  publish command: "publish", or "spublish" for sharded pub/sub
-- ARGV[5]  latch time to live in milliseconds
-- ARGV[6]  owner to pass the lock to when this is the last hold, or ''
-- ARGV[7]  that owner's lease in milliseconds
-- ARGV[8]  this request's number among the owner's release requests
-- ARGV[9]  the owner's hold count, as it knows it
-- ARGV[10] '1' to count the channel's listeners when the release is heard
--          or passes the lock on, '0' not to
--
-- Returns nil when the owner does not hold the lock; 0 when holds remain
-- (lease re-armed); 1 when this was the last hold: the key is deleted
-- (the owner's field is its only one), and the unlock message is
-- published (3 when the publish reached a subscriber, as PUBLISH counts
-- them); 2 when this was the last hold and the lock passed to ARGV[6]
-- instead: its field written with one hold and its lease set, with
-- nothing published, since the lock was never free. Asked to (ARGV[10]),
-- 3 and 2 come as {3, subscribers, relock} and {2, subscribers, relock}:
-- the channel's listeners then, and the relock Clients among them
-- (listeners.lua). The
-- latch, or for a release that leaves holds the hold count, records the
-- request (release_once), so a retry of it whose reply was lost gets the
-- same answer (1 for 3, and 2, without the counts: a retry does not step
-- aside) and releases nothing twice: four commands for an uncontended
-- last release, none of which creates a key once the owner has released
-- before. (An uncontended last release is first sent bare instead:
-- release_bare.lua.)
local last = 1
if ARGV[6] ~= '' then
  last = 2
end
local outcome, now = release_once(KEYS[1], ARGV[3], ARGV[9], ARGV[2], KEYS[3], ARGV[8], ARGV[5], last)
if not now or outcome == 0 then
  return outcome
end
if outcome == 2 then
  redis.call('hset', KEYS[1], ARGV[6], 1)
  redis.call('pexpire', KEYS[1], ARGV[7])
elseif redis.call(ARGV[4], KEYS[2], ARGV[1]) > 0 then
  outcome = 3
else
  return outcome
end
if ARGV[10] ~= '1' then
  return outcome
end
local subscribers, relock = listeners(KEYS[2], ARGV[4])
return {outcome, subscribers, relock}
