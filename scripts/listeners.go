package scripts

import (
	_ "embed"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/internal/keys"
)

var (
	//go:embed listeners.lua
	listenersLua string
	// listenersSrc is listeners.lua after the line that sets the presence
	// marker's suffix.
	listenersSrc = "local PRESENCE = '" + keys.PresenceSuffix + "'\n" + listenersLua
)

// Listeners are who listened on a channel when a script announced a
// release there or passed a lock on within a Client: Subscribers
// connections in all, Relock of them relock Clients (subscribed to the
// channel's presence marker, keys.Presence), counted at one moment. The
// zero value: none were counted (nobody heard the release, or the reply
// is a retry's). On a Redis Cluster with classic pub/sub a script counts
// the subscribers of its own node only.
type Listeners struct {
	Subscribers, Relock int
}

// Reply is a lock's release script's reply: what the request did, and,
// for a release heard or passed on, who listened.
type Reply struct {
	Outcome   Release
	Listeners Listeners
	// Granted is the relock waiter a fair lock's last release granted the
	// lock to, if any, and Grant the grant message its wait was told: the
	// wait, not only the owner, since an owner waits again and again.
	Granted, Grant string
}

// counted reads a reply that is a number, or the number with the counts
// of listeners.lua, {number, subscribers, relock}.
func counted(cmd *redis.Cmd) (int64, Listeners, error) {
	v, err := cmd.Result()
	if err != nil {
		return 0, Listeners{}, err
	}
	if a, ok := v.([]any); ok && len(a) == 3 {
		n, nok := a[0].(int64)
		subs, sok := a[1].(int64)
		relock, rok := a[2].(int64)
		if nok && sok && rok {
			return n, Listeners{Subscribers: int(subs), Relock: int(relock)}, nil
		}
	}
	n, err := cmd.Int64()
	return n, Listeners{}, err
}

// flag is a script's boolean argument.
func flag(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

// reply is the Reply of a release script that replied n (or err) and
// counted l.
func reply(n int64, l Listeners, err error) (Reply, error) {
	out, err := Outcome(n, err)
	return Reply{Outcome: out, Listeners: l}, err
}
