package pubsub

import (
	"container/list"
	"time"
)

// state is where an entry's channel stands with the server.
type state int

const (
	// subscribing: SUBSCRIBE sent, confirmation awaited.
	subscribing state = iota
	// subscribed: confirmed; messages arrive.
	subscribed
	// unsubscribing: UNSUBSCRIBE sent, confirmation awaited.
	unsubscribing
)

// entry is the shared state of one channel's waiters. Its fields are
// guarded by the shard's mutex.
type entry struct {
	channel string
	state   state
	// refs counts open Subscriptions; the channel is wanted while refs > 0.
	refs int
	// ready is closed when the subscription is confirmed. It is replaced by
	// an open channel whenever the subscription must be confirmed anew.
	ready chan struct{}
	// confirmed reports that the channel was confirmed before in this
	// entry's life, so a new confirmation follows a reconnect and every
	// waiter must retry.
	confirmed bool
	// sleepers holds the wake channels of sleeping waiters, in turn: a
	// waiter woken for a retry that failed sleeps again at the front.
	sleepers list.List
	// wakeBy is the latest time a sleeper asked to be woken by: by then
	// every current sleeper has retried.
	wakeBy time.Time
	// permits are wake-ups kept for waiters that were not asleep when
	// their message came; never more than refs.
	permits int
}

func newEntry(channel string) *entry {
	return &entry{channel: channel, ready: make(chan struct{})}
}

// release wakes n sleepers, oldest first, and keeps what is left over as
// permits for waiters busy with an attempt.
func (e *entry) release(n int) {
	for ; n > 0 && e.sleepers.Len() > 0; n-- {
		close(e.sleepers.Remove(e.sleepers.Front()).(chan struct{}))
	}
	e.permits = min(e.permits+n, e.refs)
}

// releaseAll wakes every sleeper and gives every waiter that is not asleep
// a permit, so that each waiter retries once.
func (e *entry) releaseAll() {
	e.release(e.refs)
}
