-- Changes the value of the leader of a term that leads.
--
-- KEYS[1] the lock hash; KEYS[2] the record; KEYS[3] the log
-- KEYS[4] the election's channel
-- ARGV[1] owner id; ARGV[2] the term's token; ARGV[3] the new value
-- ARGV[4] publish command; ARGV[5] entries the log keeps
--
-- Reply: 1 when the record shows the term with the value (a value it had
-- already is not recorded again); 0 when the record no longer shows the
-- term (it ended); -1 when the owner no longer holds the lock; an error
-- (not_an_election) when the record or the log holds something else.
-- Only 1 changes anything.
local lock, record, log, channel = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local owner, token, value, publish, keep = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5]
local wrong = not_an_election(record, log)
if wrong then
  return wrong
end
if redis.call('hexists', lock, owner) == 0 then
  return -1
end
local last = current(record)
if not leads(last) or last.f.owner ~= owner or last.f.token ~= token then
  return 0
end
if last.f.value ~= value then
  append(record, log, channel, publish, keep, last, 'proclaimed', token, owner, value, last.f.since)
end
return 1
