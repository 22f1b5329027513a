-- The end of acquire.lua, after hold.lua's helpers: the lock is held (ttl
-- is its PTTL), by this owner or another. One HGETALL tells which, and
-- whether the key is a lock at all when it is not the owner's.
local kv = hash_of(KEYS[1])
if kv == nil or not field_of(kv, ARGV[2]) then
  if kv == nil or no_lock_fields(kv) then
    return not_a(KEYS[1], 'lock')
  end
  return -(ttl + 2)
end
return (take_hold(KEYS[1], ARGV[2], ARGV[3], ARGV[1], false))
