-- Records the end of a term that the record shows as leading: 'resigned'
-- (its leader resigns, before releasing the lock) or 'ended' (lost, or
-- its Client closed). A term whose owner no longer holds the lock is
-- recorded 'ended' whatever was asked.
--
-- KEYS[1] the lock hash; KEYS[2] the record; KEYS[3] the log
-- KEYS[4] the election's channel
-- ARGV[1] owner id; ARGV[2] the term's token; ARGV[3] 'resigned' or 'ended'
-- ARGV[4] publish command; ARGV[5] entries the log keeps
--
-- Reply: 1 when recorded; 0 when the record did not show the term leading
-- (ended already, or a later term); an error (not_an_election) when the
-- record or the log holds something else. Only 1 changes anything.
local lock, record, log, channel = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local owner, token, kind, publish, keep = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5]
local wrong = not_an_election(record, log)
if wrong then
  return wrong
end
local last = current(record)
if not leads(last) or last.f.owner ~= owner or last.f.token ~= token then
  return 0
end
if redis.call('hexists', lock, owner) == 0 then
  kind = 'ended'
end
append(record, log, channel, publish, keep, last, kind, token, owner, last.f.value, last.f.since)
return 1
