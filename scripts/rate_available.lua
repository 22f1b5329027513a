-- rate_available.lua: the permits of a rate limiter available now
-- (Redisson's RRateLimiter.availablePermits), changing nothing: the
-- permits that came back stay in the set until the next acquisition.
--
-- KEYS    rate_common.lua's
-- ARGV[1] now: the caller's clock, epoch ms
--
-- Reply: {1, N}, N the permits available (never below 0); {-1, 0} when
-- the limiter has no rate. A key of another kind is a WRONGTYPE error
-- reply.
local cfg, bad = limiter(KEYS)
if bad then
  return redis.error_reply(bad)
elseif not cfg then
  return {-1, 0}
end
local st
st, bad = refill(cfg, tonumber(ARGV[1]), false)
if not st then
  return redis.error_reply(bad)
end
return {1, math.max(st.value, 0)}
