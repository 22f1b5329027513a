-- counting.lua: helpers of the semaphore and count-down latch scripts,
-- prepended to each of them (scripts.newCounting).
--
-- A request that changes a count (an acquisition, a release, a drain, a
-- count-down) is recorded so that a run of it resent after a lost reply
-- changes nothing. A Client keeps one record hash per object, in the
-- object's hash slot: a field of its own per request in flight (a small
-- number that one request uses at a time), valued "<seq>:<reply>" of the
-- latest request made in that field. A Client numbers its requests in increasing
-- order, so in one field a greater seq is a later request: one made after
-- the request of a smaller seq had ended.

-- other_type returns the error reply's text for key, when given, if it
-- holds a key of another type than want; nil when it is absent or of that
-- type.
local function other_type(key, want)
  if not key then
    return nil
  end
  local t = redis.call('type', key)
  t = t.ok or t
  if t ~= 'none' and t ~= want then
    return 'WRONGTYPE ' .. key .. ' is a ' .. t .. ', not a ' .. want
  end
  return nil
end

-- foreign returns the error reply's text for count (a semaphore's or a
-- latch's count) when it holds a value of another kind: a key of another
-- type, or a string that is not an integer; records (a Client's request
-- records, a hash) and leases (a permit-expirable semaphore's sorted set)
-- are checked when given. nil when every key is absent or of its kind.
-- Each script checks first, so that an object whose name is taken fails
-- at once and changes nothing. The WRONGTYPE prefix is Redis's own for a
-- key of the wrong type.
local function foreign(count, records, leases)
  local t = redis.call('type', count)
  t = t.ok or t
  if t == 'string' then
    if not string.match(redis.call('get', count), '^%-?%d+$') then
      return 'WRONGTYPE it is a string that is not a count'
    end
  elseif t ~= 'none' then
    return 'WRONGTYPE it is a ' .. t .. ', not a count'
  end
  return other_type(records, 'hash') or other_type(leases, 'zset')
end

-- replied returns the reply recorded for request seq in field of records:
-- the number, when the request ran already; true when a later request of
-- the field was recorded (this run is a late copy of a request that ended:
-- it must change nothing); nil when the request may run.
local function replied(records, field, seq)
  local rec = redis.call('hget', records, field)
  if rec then
    local s, reply = string.match(rec, '^(%d+):(-?%d+)$')
    if s then
      if tonumber(s) == tonumber(seq) then
        return tonumber(reply)
      end
      if tonumber(s) > tonumber(seq) then
        return true
      end
    end
  end
  return nil
end

-- record keeps reply as that of request seq in field of records, the hash
-- kept ttl milliseconds after its latest record, and returns reply.
local function record(records, field, seq, reply, ttl)
  redis.call('hset', records, field, seq .. ':' .. reply)
  redis.call('pexpire', records, ttl)
  return reply
end
