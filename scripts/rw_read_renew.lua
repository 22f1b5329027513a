-- Renew the leases of read holds still held by their owners (the
-- watchdog), as Redisson 4.7 does: each owner renews its own holds only.
--
-- KEYS[2i-1]  lock hash i (on Redis Cluster all KEYS share one slot)
-- KEYS[2i]    prefix of owner i's read-timeout keys
-- ARGV[1]     lease in milliseconds
-- ARGV[i+1]   owner id i (its read field)
--
-- Returns an array: element i is 1 when owner i still held a read lock and
-- its holds' leases and the hash were re-armed, 0 when it held none.
local renewed = {}
for i = 1, #KEYS / 2 do
  local lock, prefix = KEYS[2 * i - 1], KEYS[2 * i]
  local holds = tonumber(redis.call('hget', lock, ARGV[i + 1]))
  if holds then
    for n = 1, holds do
      redis.call('pexpire', prefix .. ':' .. n, ARGV[1])
    end
    redis.call('pexpire', lock, math.max(redis.call('pttl', lock), tonumber(ARGV[1])))
    renewed[i] = 1
  else
    renewed[i] = 0
  end
end
return renewed
