-- rate_set.lua: set a rate limiter's rate (Redisson's setRate), or only
-- if it has none (trySetRate), as a request applied once (counting.lua).
-- setRate resets the limiter: every permit is available, the overall
-- ones and this client's own. trySetRate, as Redisson's, keeps the
-- permits taken: a config lost alone (evicted) keeps the record of them.
--
-- KEYS[1..7] rate_common.lua's
-- KEYS[8]    the client's request records (counting.lua)
-- KEYS[9]    the limiter's channel of changes
-- ARGV[1] the rate: permits per interval
-- ARGV[2] the interval, ms
-- ARGV[3] the type: 0 overall, 1 per client
-- ARGV[4] keepAliveTime, ms: the limiter is deleted after that long
--         without an acquisition; 0: never
-- ARGV[5] 1 to set it only if it has no rate, 0 to replace it
-- ARGV[6], ARGV[7], ARGV[8] the request's field, seq and the records' TTL
-- ARGV[9] the publish command (publish or spublish) that announces a rate
--         set on KEYS[9]
--
-- Reply: 1 when set, 0 when ARGV[5] is 1 and the limiter had a rate. A
-- key of another kind is a WRONGTYPE error reply, before anything is
-- read or changed.
local cfg, bad = limiter(KEYS)
bad = bad or other_type(KEYS[8], 'hash')
if bad then
  return redis.error_reply(bad)
end
local done = replied(KEYS[8], ARGV[6], ARGV[7])
if done == true then
  return 0
elseif done then
  return done
end
if cfg and ARGV[5] == '1' then
  return record(KEYS[8], ARGV[6], ARGV[7], 0, ARGV[8])
end
redis.call('hset', KEYS[1], 'rate', ARGV[1], 'interval', ARGV[2], 'type', ARGV[3], 'keepAliveTime', ARGV[4])
if tonumber(ARGV[4]) > 0 then
  redis.call('pexpire', KEYS[1], ARGV[4])
else
  redis.call('persist', KEYS[1])
end
if ARGV[5] ~= '1' then
  redis.call('del', KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7])
end
redis.call(ARGV[9], KEYS[9], 'set')
return record(KEYS[8], ARGV[6], ARGV[7], 1, ARGV[8])
