-- counting.lua: helpers of the semaphore and count-down latch scripts,
-- prepended to each of them (scripts.newCounting).
--
-- A request that changes a count (a release, a count-down) carries a
-- request latch key: the first run applies the request and records its
-- reply there for the latch's TTL; a run of the same request resent after
-- a lost reply finds the record and returns it, changing nothing.

-- replied returns the reply recorded for the request of latch, or nil.
local function replied(latch)
  local r = redis.call('get', latch)
  if r then
    return tonumber(r)
  end
  return nil
end

-- record keeps reply as the request's for ttl milliseconds, and returns it.
local function record(latch, reply, ttl)
  redis.call('set', latch, reply, 'px', ttl)
  return reply
end
