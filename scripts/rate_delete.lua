-- rate_delete.lua: delete a rate limiter (Redisson's delete): its config,
-- the overall state and this client's own, with their ledgers. Other
-- clients' own state of a per-client limiter is left to its expiry.
--
-- KEYS rate_common.lua's
--
-- Reply: 1 when the limiter had a rate, else 0. A key of another kind is
-- a WRONGTYPE error reply, and nothing is deleted.
local cfg, bad = limiter(KEYS)
if bad then
  return redis.error_reply(bad)
end
redis.call('del', KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7])
return cfg and 1 or 0
