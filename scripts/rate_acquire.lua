-- rate_acquire.lua: take ARGV[1] permits of a rate limiter if they are
-- available (Redisson's RRateLimiter.tryAcquire), else tell how long
-- until they will be.
--
-- KEYS    rate_common.lua's
-- ARGV[1] permits (1 to 2^32-1)
-- ARGV[2] now: the caller's clock, epoch ms
-- ARGV[3] the acquisition's member (rate_common.lua): a new random id
--         for each acquisition, the same for its resends
-- ARGV[4] 1 to be told, when too few are available, when enough will be
-- ARGV[5] permits to leave available beside ARGV[1] (kept for the
--         caller's own waiters), 0 when none
--
-- Reply: {1, 0, A, I, F} when taken, also when a resend finds its member
-- taken already; {0, D, A, I, F} when too few are available: D ms from
-- now until enough come back, unless others take them first (0 unless
-- ARGV[4] asked); A the permits available then (after the taking; 0 for
-- a resend; never below 0), I the interval, F the permits of members
-- not relock's within the interval (-1 when a refusal did not count
-- them), for a relock Client's share beside other clients. {-1, 0, 0, 0} when the
-- limiter has no rate; {-2, R, 0, 0} when the permits exceed its rate R. Nothing changes but the
-- refill (rate_common.lua's) unless the permits are taken. A key of
-- another kind is a WRONGTYPE error reply, before anything is changed.
local cfg, bad = limiter(KEYS)
if bad then
  return redis.error_reply(bad)
elseif not cfg then
  return {-1, 0, 0, 0}
end
local n = tonumber(ARGV[1])
if n > cfg.rate then
  return {-2, cfg.rate, 0, 0}
end
local now = tonumber(ARGV[2])
local reserve = tonumber(ARGV[5] or '0')
local st
if ARGV[4] == '1' then
  st, bad = refill(cfg, now, true)
else
  st, bad = refill(cfg, now, true, n + reserve)
end
if not st then
  return redis.error_reply(bad)
end
local reply
if st.value >= n + reserve then
  if redis.call('zadd', cfg.permits, 'NX', now, ARGV[3]) == 1 then
    st.value, st.used, st.card, st.changed = st.value - n, st.used + n, st.card + 1, true
    reply = {1, 0, st.value}
  else
    reply = {1, 0, 0} -- a resend of a taken acquisition
  end
elseif redis.call('zscore', cfg.permits, ARGV[3]) then
  reply = {1, 0, 0} -- a resend, after the acquisition took the last
elseif ARGV[4] ~= '1' then
  reply = {0, 0, math.max(st.value, 0)}
else
  -- The oldest members whose permits make up the shortfall: enough come
  -- back when the last of them leaves the interval. The set holds the
  -- permits used (refill's count), which cover the shortfall unless the
  -- reserve is more than the rate; members may hold 0 (Redisson's
  -- tryAcquire(0)), so the walk goes on until they add up.
  local short, from = n + reserve - st.value, 0
  while not reply do
    local oldest = redis.call('zrange', cfg.permits, from, from + short - 1, 'withscores')
    if #oldest == 0 then
      reply = {0, cfg.interval, math.max(st.value, 0)}
    end
    for i = 1, #oldest, 2 do
      local p = permits_of(oldest[i])
      if not p then
        return redis.error_reply(not_permit(cfg))
      end
      short = short - p
      if short <= 0 then
        reply = {0, tonumber(oldest[i + 1]) + cfg.interval + 1 - now, math.max(st.value, 0)}
        break
      end
    end
    from = from + #oldest / 2
  end
end
if st.changed then
  save(cfg, st)
end
reply[4] = cfg.interval
reply[5] = st.foreign or -1
return reply
