-- Reads an election: its current state and the changes after one.
--
-- KEYS[1] the lock hash; KEYS[2] the record; KEYS[3] the log
-- KEYS[4] the election's channel
-- ARGV[1] the number of the last change already seen (0: none): the
--         log's entries after it are returned; -1 for none of them
-- ARGV[2] 1 to record the end of a term whose owner no longer holds the
--         lock (its lease ran out, or it was deleted), 0 to change nothing
-- ARGV[3] publish command; ARGV[4] entries the log keeps
--
-- Reply: {lock PTTL, held, record, entries...}: held is 1 when the
-- record shows a term whose owner holds the lock; record is the record's
-- fields and values ({} when there is none), and entries the log's
-- entries after ARGV[1], as XRANGE gives them ({id, {field, value, ...}}).
-- An error (not_a, not_an_election), changing nothing, when the name
-- holds a value that is not a lock, or the record or the log something
-- else.
local lock, record, log, channel = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local seen, repair, publish, keep = tonumber(ARGV[1]), ARGV[2] == '1', ARGV[3], ARGV[4]
local wrong = not_an_election(record, log)
if wrong then
  return wrong
end
if not_a_lock(lock) then
  return not_a(lock, 'lock')
end
local last = current(record)
local held = 0
if leads(last) then
  if redis.call('hexists', lock, last.f.owner) == 1 then
    held = 1
  elseif repair then
    last = end_term(record, log, channel, publish, keep, last)
  end
end
local reply = {redis.call('pttl', lock), held, {}}
if last then
  reply[3] = last.raw
  if seen >= 0 and seen < last.n then
    local after = redis.call('xrange', log, (seen + 1) .. '-0', '+')
    for i = 1, #after do
      reply[#reply + 1] = after[i]
    end
  end
end
return reply
