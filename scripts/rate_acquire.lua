-- rate_acquire.lua: take ARGV[1] permits of a rate limiter if they are
-- available (Redisson's RRateLimiter.tryAcquire), else tell how long
-- until they will be.
--
-- KEYS    rate_common.lua's
-- ARGV[1] permits (1 to 2^32-1)
-- ARGV[2] now: the caller's clock, epoch ms (rate_common.lua's stamp
--         keeps it near the server's)
-- ARGV[3] the acquisition's member (rate_common.lua): a new random id
--         for each acquisition, the same for its resends
-- ARGV[4] 1 to be told, when too few are available, when enough will be
--
-- Reply: {1, 0} when taken, also when a resend finds its member taken
-- already; {0, D} when too few are available: D ms from now (the stamp)
-- until enough come back, unless others take them first (0 unless
-- ARGV[4] asked); {-1, 0} when the limiter has no rate; {-2, R} when the
-- permits exceed its rate R.
-- Nothing changes but the refill (rate_common.lua's) unless the permits
-- are taken. A key of another kind is a WRONGTYPE error reply, before
-- anything is changed.
local cfg, bad = limiter(KEYS)
if bad then
  return redis.error_reply(bad)
elseif not cfg then
  return {-1, 0}
end
local n = tonumber(ARGV[1])
if n > cfg.rate then
  return {-2, cfg.rate}
end
local now = stamp(ARGV[2], cfg.interval)
local value, changed, created = refill(cfg, now, true, n)
if not value then
  return redis.error_reply(changed)
end
local reply
while not reply do
  if value >= n then
    -- A resend of a taken acquisition finds its member there.
    if redis.call('zadd', cfg.permits, 'NX', now, ARGV[3]) == 1 then
      value, changed = value - n, true
    end
    reply = {1, 0}
  elseif redis.call('zscore', cfg.permits, ARGV[3]) then
    reply = {1, 0} -- a resend, after the acquisition took the last
  elseif ARGV[4] ~= '1' then
    reply = {0, 0}
  else
    -- The oldest members whose permits make up the shortfall: enough
    -- come back when the last of them leaves the interval. Each member
    -- holds a permit at least, so n - value of them are enough.
    local oldest = redis.call('zrange', cfg.permits, 0, n - value - 1, 'withscores')
    local back = 0
    for i = 1, #oldest, 2 do
      local p = permits_of(oldest[i])
      if not p then
        return redis.error_reply('WRONGTYPE ' .. cfg.permits .. ' holds a member that is not a permit')
      end
      back = back + p
      if back >= n - value then
        reply = {0, tonumber(oldest[i + 1]) + cfg.interval - now}
        break
      end
    end
    if not reply then
      -- The whole set holds fewer: the count is below the rate less the
      -- permits taken (another client of a per-client limiter raised its
      -- rate). What the set does not hold is available; since n <= rate,
      -- the next pass takes the permits or finds the set covering the
      -- shortfall.
      value, changed = cfg.rate - back, true
    end
  end
end
if changed then
  redis.call('set', cfg.value, value, 'KEEPTTL')
end
keep_alive(KEYS[1], cfg, changed and created)
return reply
