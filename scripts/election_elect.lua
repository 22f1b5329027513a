-- Begins the term of an owner that holds the election's fair lock: takes
-- the next fencing token and records the term as the leader, ending the
-- term the record shows, if any (its lock expired or was deleted without
-- a word).
--
-- KEYS[1] the lock hash; KEYS[2] the fenced lock's token counter
-- KEYS[3] the record; KEYS[4] the log; KEYS[5] the election's channel
-- ARGV[1] owner id; ARGV[2] the leader's value
-- ARGV[3] publish command; ARGV[4] entries the log keeps
--
-- Reply: {token, since ms, change number} of the owner's term, begun now
-- or before (a resend of this request takes no second token); {0} when
-- the owner does not hold the lock; an error (not_an_election) when the
-- record or the log holds something else. Only the first changes
-- anything.
local lock, counter, record, log, channel = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local owner, value, publish, keep = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local wrong = not_an_election(record, log)
if wrong then
  return wrong
end
if redis.call('hexists', lock, owner) == 0 then
  return {0}
end
local last = current(record)
if leads(last) then
  if last.f.owner == owner then
    return {tonumber(last.f.token), tonumber(last.f.since), last.n}
  end
  last = end_term(record, log, channel, publish, keep, last)
end
local token = redis.call('incr', counter)
local since = now_ms()
local n = append(record, log, channel, publish, keep, last, 'elected', token, owner, value, since)
return {token, since, n}
