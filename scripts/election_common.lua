-- Helpers of the leader election scripts (scripts.Election). Every script
-- is this file followed by its own text (the state's after hold.lua's
-- helpers).
--
-- An election keeps its current state in its record, a hash, and every
-- change in its log, a stream whose entries are the states the changes
-- left; the record is the log's last entry. Each change has a number n,
-- counting from 1: the record's field seq, the entry's id '<n>-0'. The
-- other fields, in both:
--   kind   'elected' or 'proclaimed': a term, whose leader leads;
--          'resigned' or 'ended': no leader (the term named ended)
--   token  the term's fencing token
--   owner  the term's owner id: its field in the lock hash
--   value  the leader's value
--   since  when the term began, by the Redis server's clock (ms)
--   at     when the change was made (ms)
-- The log keeps its last ARGV 'keep' entries (at least one).

local function now_ms()
  local t = redis.call('time')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

local function type_of(key)
  local t = redis.call('type', key)
  if type(t) == 'table' then
    t = t.ok
  end
  return t
end

-- not_an_election returns the error a script replies when record or log
-- holds a value that is not an election's: a key of another type, or a
-- record without a change number or with an unknown kind. Its text says
-- which key holds what ("KEY is a string, not a leader election's
-- record"), after Redis's own WRONGTYPE prefix, as hold.lua's not_a words
-- a lock's. false when both are an election's, or absent. Every script
-- checks it before it reads or writes them.
local function not_an_election(record, log)
  local rt, lt = type_of(record), type_of(log)
  if rt ~= 'none' and rt ~= 'hash' then
    return redis.error_reply('WRONGTYPE ' .. record .. ' is a ' .. rt .. ', not a leader election\'s record')
  end
  if lt ~= 'none' and lt ~= 'stream' then
    return redis.error_reply('WRONGTYPE ' .. log .. ' is a ' .. lt .. ', not a leader election\'s log')
  end
  if rt == 'hash' then
    local seq, kind = unpack(redis.call('hmget', record, 'seq', 'kind'))
    local known = {elected = true, proclaimed = true, resigned = true, ended = true}
    if not (seq and string.match(seq, '^[1-9]%d*$') and known[kind]) then
      return redis.error_reply('WRONGTYPE ' .. record .. ' is a hash that is not a leader election\'s record')
    end
  end
  return false
end

-- The election's record, {n = its number, f = its fields, raw = as read},
-- or nil when it has none.
local function current(record)
  local kv = redis.call('hgetall', record)
  if #kv == 0 then
    return nil
  end
  local f = {}
  for i = 1, #kv, 2 do
    f[kv[i]] = kv[i + 1]
  end
  return {n = tonumber(f.seq), f = f, raw = kv}
end

-- Whether the state e shows a leader.
local function leads(e)
  return e ~= nil and (e.f.kind == 'elected' or e.f.kind == 'proclaimed')
end

-- Records the change kind of a term after the state last (nil for none):
-- the record, then the log, trimmed; announces it on channel with
-- publish. Returns the change's number.
local function append(record, log, channel, publish, keep, last, kind, token, owner, value, since)
  local n = 1
  if last then
    n = last.n + 1
  else
    -- A log without its record (deleted): numbers go on from its last.
    local e = redis.call('xrevrange', log, '+', '-', 'COUNT', 1)[1]
    if e then
      n = tonumber(string.match(e[1], '^(%d+)')) + 1
    end
  end
  local at = now_ms()
  redis.call('hset', record, 'seq', n, 'kind', kind, 'token', token, 'owner', owner, 'value', value,
    'since', since, 'at', at)
  redis.call('xadd', log, 'MAXLEN', keep, n .. '-0', 'kind', kind, 'token', token, 'owner', owner,
    'value', value, 'since', since, 'at', at)
  redis.call(publish, channel, '1')
  return n
end

-- Ends the term that the state last shows, kind 'ended', and returns the
-- new state.
local function end_term(record, log, channel, publish, keep, last)
  append(record, log, channel, publish, keep, last, 'ended', last.f.token, last.f.owner, last.f.value, last.f.since)
  return current(record)
end
