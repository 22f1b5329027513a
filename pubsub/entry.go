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
	// orphaned: no longer the shard's; its waiters get no messages.
	orphaned
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

	// Fair hand-offs between clients. Redis delivers a release to the
	// subscribers of its channel in subscription order, so the client that
	// subscribed first would win nearly every race for the lock. share is
	// the part of recent releases that this client's woken waiters won (an
	// average that forgets over about 1/shareWeight releases); peers is the
	// number of connections subscribed to the channel, from PUBSUB NUMSUB,
	// asked at most every peersMaxAge. A client above its fair share
	// 1/peers lets the others go first: its woken waiter starts its retry a
	// little later (yieldDelay).
	share   float64
	peers   int
	peersAt time.Time
}

const (
	shareWeight = 1.0 / 16
	peersMaxAge = time.Second
	// maxYield is the longest a woken waiter lets other clients go first:
	// far more than the spread of their retries, far less than a lease.
	maxYield = time.Millisecond
)

func newEntry(channel string) *entry {
	return &entry{channel: channel, ready: make(chan struct{})}
}

// release wakes n sleepers, oldest first, and keeps what is left over as
// permits for waiters busy with an attempt.
func (e *entry) release(n int) { e.wake(n, 0) }

// wake wakes n sleepers, oldest first, telling each to wait delay before
// it retries, and keeps what is left over as permits.
func (e *entry) wake(n int, delay time.Duration) {
	for ; n > 0 && e.sleepers.Len() > 0; n-- {
		e.sleepers.Remove(e.sleepers.Front()).(chan time.Duration) <- delay
	}
	e.permits = min(e.permits+n, e.refs)
}

// released handles a message announcing that the lock was released: one
// waiter retries, later if this client has won more than its share.
func (e *entry) released() {
	e.share *= 1 - shareWeight
	e.wake(1, e.yieldDelay())
}

// won records that a waiter woken by a release took the lock.
func (e *entry) won() { e.share += shareWeight }

// yieldDelay is how long this client's woken waiter lets other clients go
// first: nothing at or below its fair share, up to maxYield far above it.
func (e *entry) yieldDelay() time.Duration {
	if e.peers < 2 {
		return 0
	}
	excess := e.share*float64(e.peers) - 1
	if excess <= 0 {
		return 0
	}
	return time.Duration(min(excess, 1) * float64(maxYield))
}

// releaseAll wakes every sleeper and gives every waiter that is not asleep
// a permit, so that each waiter retries once.
func (e *entry) releaseAll() {
	e.release(e.refs)
}
