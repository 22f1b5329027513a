-- Acquire or re-enter a fenced reentrant lock (Redisson RFencedLock layout):
-- as acquire.lua, and every first acquisition takes the next fencing token
-- (a re-entry keeps the hold's token).
--
-- KEYS[1]  lock hash: field = owner id, value = hold count
-- KEYS[2]  token counter (no TTL; only ever incremented)
-- ARGV[1]  lease in milliseconds
-- ARGV[2]  owner id
-- ARGV[3]  holds the owner had before this acquisition, as it knows them
-- ARGV[4]  the token of the owner's latest acquisition (0: none)
--
-- Returns {1, token} when the owner now holds the lock, else {0, the lock's
-- remaining TTL in milliseconds}; an error (not_a) when the key is
-- not a lock. A retry of an acquisition whose reply was
-- lost takes no new token and returns the current one.
--
-- Such a retry finds the owner's field at ARGV[3] + 1, but so does an
-- acquisition whose owner's last release a failover lost: the field is
-- left on the new master. The counter tells them apart: a lost reply's
-- acquisition took a token above the owner's latest; a leftover field's
-- is the owner's latest, and the acquisition is a new one.
local ttl = redis.call('pttl', KEYS[1])
if ttl ~= -2 then
  local kv = hash_of(KEYS[1])
  if kv == nil or not field_of(kv, ARGV[2]) then
    if kv == nil or no_lock_fields(kv) then
      return not_a(KEYS[1], 'lock')
    end
    return {0, ttl}
  end
end
local holds, added = take_hold(KEYS[1], ARGV[2], ARGV[3], ARGV[1], ttl == -2)
if added and holds == 1 then
  return {1, redis.call('incr', KEYS[2])}
end
local token = tonumber(redis.call('get', KEYS[2]) or '0')
if holds == 1 and token <= tonumber(ARGV[4]) then
  return {1, redis.call('incr', KEYS[2])}
end
return {1, token}
