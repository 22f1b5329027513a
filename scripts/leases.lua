-- leases.lua: the helper of the permit-expirable semaphore's scripts,
-- after counting.lua (scripts.newLeases).

-- reclaim returns a permit-expirable semaphore's expired permits (at most
-- limit of them, all when limit is -1) to its count, and announces the
-- count, as Redisson does, when it is positive.
local function reclaim(count, leases, channel, now, limit, publish)
  local expired = redis.call('zrangebyscore', leases, 0, now, 'limit', 0, limit)
  if #expired > 0 then
    redis.call('zrem', leases, unpack(expired))
    local value = redis.call('incrby', count, #expired)
    if tonumber(value) > 0 then
      redis.call(publish, channel, value)
    end
  end
end
