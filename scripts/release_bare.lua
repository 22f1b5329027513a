-- Release the last hold of a reentrant lock, sent once (scripts.Unlock.Bare):
-- the uncontended Unlock's script, as small as Redisson's.
--
-- KEYS[1]  lock hash
-- KEYS[2]  unlock channel
-- ARGV[1]  owner id
--
-- The script is a line naming its publish command, PUBLISH ('publish', or
-- 'spublish' for sharded pub/sub), the command that counts that kind of
-- subscriber, NUMSUB, the suffix of a channel's presence marker, PRESENCE
-- (keys.PresenceSuffix), and whether to count, COUNT (one script for each
-- publish command and COUNT), then this file; the unlock message is
-- Redisson's '0'. Each argument a call leaves out saves
-- Redis parsing it and handing it to Lua (0.2 µs of 2.9 per call on Redis
-- 7.0 for the two this script once took).
--
-- When the owner's field holds exactly one hold, the key is deleted (the
-- owner's field is its only one) and the unlock message published: returns
-- 1, or 3 when the publish reached a subscriber; with COUNT,
-- {3, subscribers, relock}: the channel's listeners then, and the relock
-- Clients among them (listeners.lua's count, written out here so that an
-- uncontended release defines no helper). Otherwise changes nothing and returns -1: the owner
-- sends its full release request (release.lua), which tells the other
-- cases apart. Go-redis never resends this script (it is sent with
-- NoRetry), so it needs no latch: a send that fails is followed by the
-- full request, latched.
if redis.call('hget', KEYS[1], ARGV[1]) ~= '1' then
  return -1
end
redis.call('del', KEYS[1])
if redis.call(PUBLISH, KEYS[2], '0') == 0 then
  return 1
end
if not COUNT then
  return 3
end
local n = redis.call('pubsub', NUMSUB, KEYS[2], KEYS[2] .. PRESENCE)
return {3, n[2], n[4]}
