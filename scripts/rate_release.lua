-- rate_release.lua: give back up to ARGV[1] permits of a rate limiter
-- that were taken within the interval, as a request applied once
-- (counting.lua). They count as never taken: the members taken last
-- leave the set (the last one given back in part keeps the rest of its
-- permits), and the count grows by as many. Unlike Redisson's release,
-- which raises the count alone, so that the same permits come back again
-- when their members leave the interval, this keeps rate_common.lua's
-- count: a window of one interval never holds more than the rate.
--
-- KEYS[1..7] rate_common.lua's
-- KEYS[8]    the client's request records (counting.lua)
-- KEYS[9]    the limiter's channel of changes
-- ARGV[1] permits (1 to 2^32-1)
-- ARGV[2] now: the caller's clock, epoch ms
-- ARGV[3], ARGV[4], ARGV[5] the request's field, seq and the records' TTL
-- ARGV[6] the publish command (publish or spublish) that announces
--         permits given back on KEYS[9]
--
-- Reply: the permits given back (fewer than ARGV[1] when fewer were
-- taken within the interval); -1 when the limiter has no rate. A key of
-- another kind is a WRONGTYPE error reply, before anything is changed.
local cfg, bad = limiter(KEYS)
bad = bad or other_type(KEYS[8], 'hash')
if bad then
  return redis.error_reply(bad)
elseif not cfg then
  return -1
end
local done = replied(KEYS[8], ARGV[3], ARGV[4])
if done == true then
  return 0
elseif done then
  return done
end
local st
st, bad = refill(cfg, tonumber(ARGV[2]), true)
if not st then
  return redis.error_reply(bad)
end
local left = tonumber(ARGV[1])
local latest = redis.call('zrange', cfg.permits, -left, -1, 'withscores')
for i = #latest - 1, 1, -2 do
  local member = latest[i]
  local p = permits_of(member)
  if not p then
    return redis.error_reply(not_permit(cfg))
  end
  redis.call('zrem', cfg.permits, member)
  if p > left then
    local rest = p - left
    local id = string.sub(member, 1, #member - 4)
    redis.call('zadd', cfg.permits, latest[i + 1], id .. string.char(rest % 256, math.floor(rest / 256) % 256,
      math.floor(rest / 65536) % 256, math.floor(rest / 16777216)))
    p = left
  end
  left = left - p
  st.value, st.used = st.value + p, st.used - p
  if foreign(member) then
    st.foreign = st.foreign - p
  end
  if left == 0 then
    break
  end
end
st.card = nil
save(cfg, st)
if left < tonumber(ARGV[1]) then
  redis.call(ARGV[6], KEYS[9], 'released')
end
return record(KEYS[8], ARGV[3], ARGV[4], tonumber(ARGV[1]) - left, ARGV[5])
