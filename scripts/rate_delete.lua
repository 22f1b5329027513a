-- rate_delete.lua: delete a rate limiter (Redisson's delete): its config,
-- the overall state and this client's own, with their ledgers. Other
-- clients' own state of a per-client limiter is left to its expiry.
--
-- KEYS[1..7] rate_common.lua's
-- KEYS[8]    the limiter's channel of changes
-- ARGV[1]    the publish command (publish or spublish) that announces the
--            deletion of a rate on KEYS[8]
--
-- Reply: 1 when the limiter had a rate, else 0. A key of another kind is
-- a WRONGTYPE error reply, and nothing is deleted.
local cfg, bad = limiter(KEYS)
if bad then
  return redis.error_reply(bad)
end
redis.call('del', KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7])
if cfg then
  redis.call(ARGV[1], KEYS[8], 'deleted')
  return 1
end
return 0
