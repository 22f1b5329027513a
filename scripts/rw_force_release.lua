-- Delete a read-write lock whatever its mode and holders (administrative
-- force-unlock), waking every waiter.
--
-- KEYS[1]  lock hash
-- KEYS[2]  the lock's channel
-- ARGV[1]  message ('1': every waiter retries)
-- ARGV[2]  publish command
--
-- Returns 1 when a lock was deleted, 0 when there was none; an error
-- (not_a) when the key holds a value that is not a lock. Read-timeout
-- keys left behind expire with their leases.
if not_a_lock(KEYS[1]) then
  return not_a(KEYS[1], 'lock')
end
if redis.call('hget', KEYS[1], 'mode') then
  redis.call('del', KEYS[1])
  redis.call(ARGV[2], KEYS[2], ARGV[1])
  return 1
end
return 0
