-- Helpers every lock script shares: a script is this file and
-- release_once.lua followed by its own text (scripts.New), so the re-entry
-- rule and the unlock latch are written once; the reentrant lock's scripts
-- take only the file they call. The read-write lock's own helpers are in
-- rw_hold.lua.

-- not_a is the error a script returns for key when it holds a value that
-- is not a want ('lock', 'read-write lock'): it says what the key holds
-- ("it is a string, not a lock", "it is a hash that is not a lock"), after
-- Redis's own WRONGTYPE prefix for a key of the wrong type. (rlock's
-- wrongKind words its own checks alike.)
local function not_a(key, want)
  local t = redis.call('type', key)
  if type(t) == 'table' then
    t = t.ok
  end
  if t == 'hash' then
    return redis.error_reply('WRONGTYPE it is a hash that is not a ' .. want)
  end
  return redis.error_reply('WRONGTYPE it is a ' .. t .. ', not a ' .. want)
end

-- The fields and values of the hash at lock as HGETALL lists them (none
-- when the key is missing, or gone on a server whose TTLs follow the wall
-- clock while a script runs: miniredis's ClockTTL), or nil when the key
-- holds another type: one command, which HEXISTS would cost too.
local function hash_of(lock)
  local kv = redis.pcall('hgetall', lock)
  if kv.err then
    return nil
  end
  return kv
end

-- The value of field in kv (hash_of), or false.
local function field_of(kv, field)
  for i = 1, #kv, 2 do
    if kv[i] == field then
      return kv[i + 1]
    end
  end
  return false
end

-- Whether kv, a hash's fields and values (hash_of), is not a lock in
-- Redisson's layout: owner fields valued positive hold counts, with at
-- most a read-write lock's 'mode' field, 'read' or 'write'. No field at
-- all is no value at all.
local function no_lock_fields(kv)
  if #kv == 0 then
    return false
  end
  local owners = 0
  for i = 1, #kv, 2 do
    local field, value = kv[i], kv[i + 1]
    if field == 'mode' then
      if value ~= 'read' and value ~= 'write' then
        return true
      end
    elseif string.match(value, '^[1-9]%d*$') then
      owners = owners + 1
    else
      return true
    end
  end
  return owners == 0
end

-- Whether lock holds a value that is not a lock in Redisson's layout: a
-- key of another type, or a hash that no_lock_fields refuses. A missing
-- key is no value at all. (rlock's isLockHash checks the same, and the
-- owner ids' shape too.) Run where an acquisition finds the lock not its
-- own, so that a hash that is no lock fails at once instead of being
-- waited for.
local function not_a_lock(lock)
  local kv = hash_of(lock)
  return kv == nil or no_lock_fields(kv)
end

-- Takes one more hold of lock for owner, whose hold count was known to be
-- known before this acquisition, and re-arms lease (milliseconds); free
-- says the lock key does not exist. When the count already is known + 1,
-- the request is a retry of one whose reply was lost: it is not counted
-- twice. Returns the hold count and whether this call added it.
local function take_hold(lock, owner, known, lease, free)
  local holds = 0
  if not free then
    holds = tonumber(redis.call('hget', lock, owner) or '0')
  end
  local added = holds ~= tonumber(known) + 1
  if added then
    holds = redis.call('hincrby', lock, owner, 1)
  end
  redis.call('pexpire', lock, lease)
  return holds, added
end
