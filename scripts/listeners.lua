-- listeners.lua: who listens on a channel, for the scripts that announce
-- a release or pass a lock on within a Client. Prepended to them after a
-- line that sets PRESENCE, the suffix of a channel's presence marker
-- (keys.PresenceSuffix): a relock Client subscribes to the marker beside
-- each channel it listens on, a Redisson client does not.

-- listeners returns how many connections subscribe to channel and how
-- many of them are relock Clients, counted at one moment by one command.
-- publish is the script's publish command: SPUBLISH reaches sharded
-- subscriptions, which SHARDNUMSUB counts.
local function listeners(channel, publish)
  local numsub = 'numsub'
  if publish == 'spublish' then
    numsub = 'shardnumsub'
  end
  local n = redis.call('pubsub', numsub, channel, channel .. PRESENCE)
  return n[2], n[4]
end

-- announce publishes message on channel with publish and returns reply,
-- or, if count is '1' and a subscriber heard the message, {reply,
-- subscribers, relock}: the channel's listeners then (listeners).
local function announce(reply, channel, publish, message, count)
  if redis.call(publish, channel, message) == 0 or count ~= '1' then
    return reply
  end
  local subscribers, relock = listeners(channel, publish)
  return {reply, subscribers, relock}
end
