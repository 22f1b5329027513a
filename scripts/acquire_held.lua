-- The end of acquire.lua, after hold.lua's helpers: the lock is held (ttl
-- is its PTTL), by this owner or another.
if redis.call('hexists', KEYS[1], ARGV[2]) == 0 then
  if not_a_lock(KEYS[1]) then
    return not_a(KEYS[1], 'lock')
  end
  return -(ttl + 2)
end
return (take_hold(KEYS[1], ARGV[2], ARGV[3], ARGV[1], false))
