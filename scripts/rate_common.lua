-- rate_common.lua: helpers of the rate limiter's scripts, prepended to
-- each of them (scripts.newRate). The layout is Redisson's RRateLimiter.
--
-- KEYS, as Redisson's scripts have them:
-- KEYS[1] the config, a hash: rate, interval (ms), type (0 overall, 1 per
--         client), keepAliveTime (ms, 0: none)
-- KEYS[2] the available permits, {NAME}:value
-- KEYS[3] this client's, {NAME}:value:<client id> (type 1)
-- KEYS[4] the permits taken, the sorted set {NAME}:permits
-- KEYS[5] this client's, {NAME}:permits:<client id> (type 1)
--
-- A member of the set is one acquisition: a byte, the length L of a
-- random id; the id (L bytes); the number of permits taken, 4 bytes
-- little-endian (Redisson's struct.pack('Bc0I', L, id, n)). Its score is
-- the acquirer's clock, epoch milliseconds. A member is taken "within the
-- interval" until now - interval reaches its score; then its permits come
-- back. Every script keeps value + the permits of the set's members =
-- rate, and repairs a count that strays from it (refill; rate_acquire.lua).

-- wrong is the text of the error reply for key, a key beside the
-- limiter's name, which holds something else than what.
local function wrong(key, what)
  local t = redis.call('type', key)
  return 'WRONGTYPE ' .. key .. ' is a ' .. (t.ok or t) .. ', not ' .. what
end

-- limiter reads the config: it returns the config (rate, interval, keep,
-- and the keys of the value and the permits its type uses), or nil and
-- the text of an error reply for a key of another kind, or nil, nil when
-- the limiter has no rate.
local function limiter(keys)
  local c = redis.pcall('hmget', keys[1], 'rate', 'interval', 'type', 'keepAliveTime')
  if c.err then
    local t = redis.call('type', keys[1])
    return nil, 'WRONGTYPE it is a ' .. (t.ok or t) .. ", not a rate limiter's config"
  end
  if not c[1] and not c[2] and not c[3] and redis.call('exists', keys[1]) == 0 then
    return nil, nil
  end
  local cfg = {rate = tonumber(c[1] or ''), interval = tonumber(c[2] or ''), keep = tonumber(c[4] or '0')}
  if not cfg.rate or not cfg.interval or not cfg.keep or (c[3] ~= '0' and c[3] ~= '1') then
    return nil, "WRONGTYPE it is a hash that is not a rate limiter's config"
  end
  cfg.value, cfg.permits = keys[2], keys[4]
  if c[3] == '1' then
    cfg.value, cfg.permits = keys[3], keys[5]
  end
  return cfg
end

-- permits_of is the number of permits of member, nil when it is not one.
local function permits_of(member)
  local skip = (string.byte(member, 1) or 0) + 1
  local a, b, c, d = string.byte(member, skip + 1, skip + 4)
  if not d or #member ~= skip + 4 then
    return nil
  end
  return a + 256 * (b + 256 * (c + 256 * d))
end

-- sum is the permits of members (every step-th of them: 2 when they come
-- with their scores), or nil and an error's text when one is no permit.
local function sum(cfg, members, step)
  local n = 0
  for i = 1, #members, step do
    local p = permits_of(members[i])
    if not p then
      return nil, 'WRONGTYPE ' .. cfg.permits .. ' holds a member that is not a permit'
    end
    n = n + p
  end
  return n
end

-- stamp is the caller's clock, ms, kept within 1% of the interval (at
-- least 1 ms, at most 1 s) of the server's TIME: a host whose clock is
-- further off moves the window by that bound, no more.
local function stamp(ms, interval)
  local t = redis.call('time')
  local server = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  local bound = math.max(1, math.min(math.floor(interval / 100), 1000))
  return math.min(math.max(tonumber(ms), server - bound), server + bound)
end

-- refill returns the permits available at now: the count, plus the
-- permits of the members whose interval ended by now (dropped from the
-- set when drop). A count that is absent (a fresh limiter), or that
-- reaches need but is higher than the rate less a permit for each member
-- still within the interval (Redisson's release raises the count and
-- leaves the members, whose permits would come back twice), is
-- recounted: the rate less the permits of those members. It returns the
-- count, whether it differs from the stored one, and whether the count or
-- the set is to be created (absent, or emptied by the drop); or nil and an
-- error's text.
local function refill(cfg, now, drop, need)
  local v = redis.pcall('get', cfg.value)
  if type(v) == 'table' then
    return nil, wrong(cfg.value, 'a count')
  end
  local value = tonumber(v or '0')
  if not value then
    return nil, 'WRONGTYPE ' .. cfg.value .. ' is a string that is not a count'
  end
  local old = now - cfg.interval
  local ended = redis.pcall('zrangebyscore', cfg.permits, '-inf', old)
  if ended.err then
    return nil, wrong(cfg.permits, 'a set of permits')
  end
  local back, bad = sum(cfg, ended, 1)
  if bad then
    return nil, bad
  end
  if back > 0 and drop then
    redis.call('zremrangebyscore', cfg.permits, '-inf', old)
  end
  local fresh = value + back
  local stray, empty = v == false, false
  if not stray and fresh >= need then
    local within = redis.call('zcard', cfg.permits)
    if not drop then
      within = within - #ended
    end
    stray, empty = fresh + within > cfg.rate, within == 0
  end
  if stray then
    local used
    used, bad = sum(cfg, redis.call('zrangebyscore', cfg.permits, '(' .. old, '+inf'), 1)
    if bad then
      return nil, bad
    end
    fresh = cfg.rate - used
  end
  return fresh, v == false or fresh ~= value, v == false or empty
end

-- keep_alive re-arms the keys' expiry after an attempt: keepAliveTime
-- from now when the config has one (an idle limiter is deleted then),
-- else, when the attempt created the count or the set, the config's own
-- TTL, if it has one (Redisson's rule; Redisson gives it at every write,
-- as its SET drops the count's TTL, which relock's keeps).
local function keep_alive(config, cfg, created)
  local ttl = cfg.keep
  if ttl > 0 then
    redis.call('pexpire', config, ttl)
  elseif created then
    ttl = redis.call('pttl', config)
  end
  if ttl > 0 then
    redis.call('pexpire', cfg.value, ttl)
    redis.call('pexpire', cfg.permits, ttl)
  end
end
