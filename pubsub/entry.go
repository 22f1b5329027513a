package pubsub

import "github.com/relock-go/relock/internal/keys"

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
	// refused: the server refused the subscription (err); no longer the
	// shard's.
	refused
)

// entry is the shared state of one channel's waiters in one shard: where
// the channel stands with the server, its wake-up queue, and this
// client's share of its hand-offs. Its fields are guarded by the shard's
// mutex.
type entry struct {
	channel string
	state   state
	// ready is closed when the subscription is confirmed. It is replaced by
	// an open channel whenever the subscription must be confirmed anew.
	ready chan struct{}
	// confirmed reports that the channel was confirmed before in this
	// entry's life, so a new confirmation follows a reconnect and every
	// waiter must retry.
	confirmed bool
	// q wakes the waiters; q.subs counts the open Subscriptions, and
	// the channel is wanted while it is above zero.
	q     wakeups
	share share
	// grant is the last grant message heard (keys.GrantPrefix), until a
	// waiter takes it (Subscription.TakeGrant).
	grant string
	// lastGrant is the last grant heard or told (Subscription.Grant): a
	// grant is taken once, however it came.
	lastGrant string
	// err is why the server refused the subscription (state refused).
	err error
}

func newEntry(channel string) *entry {
	return &entry{channel: channel, ready: make(chan struct{})}
}

// released handles a message announcing that the lock was released: one
// waiter retries, later if this client won one of the last releases.
func (e *entry) released() { e.q.wake(1, e.share.released()) }

// semaphoreShared reports whether e is a semaphore's channel (its
// messages are counts of permits) on which clients other than relock's
// listen. Each message is then a release like a lock's, which wakes one
// waiter in turn with them (released), "1" too; among relock Clients "1"
// wakes every waiter, as on a lock's channel, which in a Client is the one
// at the head of the semaphore's line.
func (e *entry) semaphoreShared() bool {
	return e.share.foreign > 0 && keys.IsSemaphoreChannel(e.channel)
}
