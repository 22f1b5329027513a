-- rate_common.lua: helpers of the rate limiter's scripts, prepended to
-- each of them (scripts.newRate). The layout is Redisson's RRateLimiter.
--
-- KEYS, as Redisson's scripts have them, then relock's own:
-- KEYS[1] the config, a hash: rate, interval (ms), type (0 overall, 1 per
--         client), keepAliveTime (ms, 0: none)
-- KEYS[2] the available permits, {NAME}:value
-- KEYS[3] this client's, {NAME}:value:<client id> (type 1)
-- KEYS[4] the permits taken, the sorted set {NAME}:permits
-- KEYS[5] this client's, {NAME}:permits:<client id> (type 1)
-- KEYS[6] relock's ledger of KEYS[2] and KEYS[4], {NAME}:ledger
-- KEYS[7] this client's, {NAME}:ledger:<client id> (type 1)
--
-- A member of the set is one acquisition: a byte, the length L of a
-- random id; the id (L bytes); the number of permits taken, 4 bytes
-- little-endian (Redisson's struct.pack('Bc0I', L, id, n)); Redisson's
-- tryAcquire(0) writes members of 0. Redisson's ids are 16 bytes long,
-- relock's 17 (relock_id): the permits of other ids are foreign, for a
-- relock Client's share beside them. Its score is the acquirer's clock,
-- epoch milliseconds, used as given: a member scored s comes back when a
-- caller's clock reads more than s + interval, so never less than one
-- interval after it was taken.
--
-- The permits available are the rate less the permits of the members
-- still in the interval: relock's scripts count them so, and write the
-- count to the value for Redisson's, which trust it. Summing the set at
-- each call would cost one step per member, so the ledger keeps the sum
-- as of relock's last write, beside the value and the set's size then:
-- while those are as relock left them (no Redisson client wrote since),
-- the ledger's sum is the set's; otherwise the set is summed again. The
-- ledger keeps the foreign permits' sum beside it, the same way. A
-- Redisson release, which raises the value alone, is so undone at
-- relock's next call. (Redisson's scripts keep value + permits = rate,
-- but for a release; a release and acquisitions since relock's last write
-- that left both the value and the size as they were would go unseen.)

-- wrong is the text of the error reply for key, a key beside the
-- limiter's name, which holds something else than what.
local function wrong(key, what)
  local t = redis.call('type', key)
  return 'WRONGTYPE ' .. key .. ' is a ' .. (t.ok or t) .. ', not ' .. what
end

-- limiter reads the config: it returns the config (rate, interval, keep,
-- whether it is per client, and the keys of the value, the permits and
-- the ledger its type uses), or nil and the text of an error reply for a
-- key of another kind, or nil, nil when the limiter has no rate.
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
  cfg.config, cfg.per_client = keys[1], c[3] == '1'
  cfg.value, cfg.permits, cfg.ledger = keys[2], keys[4], keys[6]
  if cfg.per_client then
    cfg.value, cfg.permits, cfg.ledger = keys[3], keys[5], keys[7]
  end
  return cfg
end

-- relock_id is the length of the ids of relock's members.
local relock_id = 17

-- foreign reports whether member is not relock's.
local function foreign(member)
  return string.byte(member, 1) ~= relock_id
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

-- not_permit is the text of the error reply for a set holding a member
-- that is not a permit.
local function not_permit(cfg)
  return 'WRONGTYPE ' .. cfg.permits .. ' holds a member that is not a permit'
end

-- sum is the permits of members and those of them that are foreign, or
-- nil and an error's text when one is no permit.
local function sum(cfg, members)
  local n, f = 0, 0
  for _, m in ipairs(members) do
    local p = permits_of(m)
    if not p then
      return nil, not_permit(cfg)
    end
    n = n + p
    if foreign(m) then
      f = f + p
    end
  end
  return n, f
end

-- tally is the permits of the set's members and the foreign ones' among
-- them, from the ledger when the value v and the set's size card are as
-- relock last left them, else summed; or nil and an error's text. Its
-- third result tells whether the ledger was absent.
local function tally(cfg, v, card)
  local l = redis.pcall('get', cfg.ledger)
  if type(l) == 'table' then
    return nil, wrong(cfg.ledger, "a rate limiter's ledger")
  end
  if l and v then
    local used, f = string.match(l, '^(%d+) (%d+) ')
    if used and string.sub(l, #used + #f + 3) == v .. ' ' .. card then
      return tonumber(used), tonumber(f), false
    end
  end
  local n, f = sum(cfg, redis.call('zrange', cfg.permits, 0, -1))
  if not n then
    return nil, f
  end
  return n, f, not l
end

-- refill counts the permits available at now: it returns the state
-- {value, used (the permits of the members within the interval), card
-- (the set's size), changed (the stored value differs, or the set lost
-- members), created (the value, the set or the ledger is new)}, the
-- members whose interval ended dropped from the set when drop; or nil and
-- an error's text. value is below 0 when another client lowered the rate
-- under what was taken. Given need, when the stored value is below it and
-- no permit came back, it returns {value} alone: what a refusal needs.
local function refill(cfg, now, drop, need)
  local v = redis.pcall('get', cfg.value)
  if type(v) == 'table' then
    return nil, wrong(cfg.value, 'a count')
  elseif v and not string.match(v, '^%-?%d+$') then
    return nil, 'WRONGTYPE ' .. cfg.value .. ' is a string that is not a count'
  end
  local old = '(' .. string.format('%d', now - cfg.interval)
  local ended = redis.pcall('zrangebyscore', cfg.permits, '-inf', old)
  if ended.err then
    return nil, wrong(cfg.permits, 'a set of permits')
  end
  if need and v and #ended == 0 and tonumber(v) < need then
    return {value = tonumber(v)}
  end
  local card = redis.call('zcard', cfg.permits)
  local used, f, fresh = tally(cfg, v, card)
  if not used then
    return nil, f
  end
  local back, f_back = sum(cfg, ended)
  if not back then
    return nil, f_back
  end
  if drop and #ended > 0 then
    redis.call('zremrangebyscore', cfg.permits, '-inf', old)
    card = card - #ended
  end
  used = used - back
  local value = cfg.rate - used
  return {value = value, used = used, foreign = f - f_back, card = card, changed = (drop and #ended > 0) or v ~= string.format('%d', value),
    created = fresh or not v or card + #ended == 0}
end

-- save writes the state st refill returned, as changed since (its card
-- nil when unknown): the value, and the ledger of it; then arms the keys'
-- expiry: keepAliveTime from now when the config has one (an idle limiter
-- is deleted then); else, for a client's own keys, twice the interval (by
-- then every permit came back, and a client that is gone leaves nothing);
-- else, for keys just created, the config's own TTL if it has one
-- (Redisson's rule), which later writes keep.
local function save(cfg, st)
  local v = string.format('%d', st.value)
  redis.call('set', cfg.value, v, 'KEEPTTL')
  local card = st.card or redis.call('zcard', cfg.permits)
  redis.call('set', cfg.ledger, string.format('%d %d', st.used, st.foreign) .. ' ' .. v .. ' ' .. card, 'KEEPTTL')
  local ttl = cfg.keep
  if ttl > 0 then
    redis.call('pexpire', cfg.config, ttl)
  elseif cfg.per_client then
    ttl = 2 * cfg.interval
  elseif st.created then
    ttl = redis.call('pttl', cfg.config)
  end
  if ttl > 0 then
    redis.call('pexpire', cfg.value, ttl)
    redis.call('pexpire', cfg.permits, ttl)
    redis.call('pexpire', cfg.ledger, ttl)
  end
end
