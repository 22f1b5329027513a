-- Renew the leases of fair locks still held by their owners (the
-- watchdog), and keep each one's queue head's deadline ahead: the holder
-- is alive, so the head waits for a live holder. A Redisson head's
-- deadline never moves with time; through a hold longer than its wait
-- timeout it would pass, and its own script would purge it when it next
-- woke, to queue again behind those that came after it. A head's deadline
-- less than half of keep away (the wait timeout, or the lease if longer:
-- renewals come a third of a lease apart) moves to keep from now, every
-- deadline moving as much; one further away is left alone, so that a
-- renewal rarely moves any. Prepended with scripts.New's helpers and
-- fair_common.lua.
--
-- KEYS[4i-3]  lock hash i (on Redis Cluster all KEYS share one slot)
-- KEYS[4i-2]  its queue LIST
-- KEYS[4i-1]  its deadline ZSET
-- KEYS[4i]    its relock waiters HASH
-- ARGV[1]     lease in milliseconds
-- ARGV[2]     wait timeout in milliseconds
-- ARGV[i+2]   owner id expected to hold lock i
--
-- Returns an array: element i is 1 when lock i was renewed, 0 when its
-- owner no longer holds it.
local keep = math.max(tonumber(ARGV[2]), tonumber(ARGV[1]))
local now
local renewed = {}
for i = 1, #KEYS / 4 do
  local lock, queue, timeouts, waiters = KEYS[4 * i - 3], KEYS[4 * i - 2], KEYS[4 * i - 1], KEYS[4 * i]
  if redis.call('hexists', lock, ARGV[i + 2]) == 1 then
    redis.call('pexpire', lock, ARGV[1])
    local deadline = head_deadline(queue, timeouts)
    if deadline then
      now = now or now_ms()
      if deadline < now + keep / 2 then
        keep_fresh(timeouts, waiters, deadline, now, keep)
      end
    end
    renewed[i] = 1
  else
    renewed[i] = 0
  end
end
return renewed
