-- Renew the leases of locks still held by their owners (the watchdog).
--
-- KEYS[i]    lock hash i (on Redis Cluster all KEYS share one slot)
-- ARGV[1]    lease in milliseconds
-- ARGV[i+1]  owner id expected to hold KEYS[i]
--
-- Returns an array: element i is 1 when KEYS[i] was renewed, 0 when its
-- owner no longer holds it.
local renewed = {}
for i, key in ipairs(KEYS) do
  if redis.call('hexists', key, ARGV[i + 1]) == 1 then
    redis.call('pexpire', key, ARGV[1])
    renewed[i] = 1
  else
    renewed[i] = 0
  end
end
return renewed
