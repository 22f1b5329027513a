-- The state of a lock of any kind, for IsLocked and TTL.
--
-- KEYS[1]  lock hash
--
-- Returns the lock's PTTL in milliseconds: -2 when no owner holds it (the
-- key does not exist), -1 when it never expires; an error (not_a)
-- when the key holds a value that is not a lock.
if not_a_lock(KEYS[1]) then
  return not_a(KEYS[1], 'lock')
end
return redis.call('pttl', KEYS[1])
