package rlock

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/internal/keys"
	"github.com/relock-go/relock/queue"
	"github.com/relock-go/relock/scripts"
)

// FairMutex is one owner of a distributed reentrant lock granted in
// arrival order: Redisson's RFairLock. Owners that must wait join a queue
// in Redis and take the lock strictly in turn; a newcomer never gets ahead
// of a waiting owner, not even with a single-attempt TryLock while the lock
// is free and the next owner is about to take it. It is reentrant, owned
// by the *FairMutex, and safe for concurrent use, exactly as Mutex, whose
// methods it has. An owner has one place in the queue: goroutines sharing
// a FairMutex take turns waiting in it, in arrival order, and when the one
// in the queue gives up, the place is given up and the next of them queues
// anew.
//
// The queue makes the differences its methods state: Lock and TryLock
// take the lock in turn, and this owner has left the queue when they give
// up (handing on a grant that came too late); a TryLock with no wait
// succeeds only if the lock is free and nobody waits (or this owner holds
// it already), and never queues, nor does Reenter; Unlock grants the lock
// to the next owner in the queue only, even when the lock expired
// meanwhile, and ForceUnlock wakes it too and keeps the queue. A lock that
// expires without Unlock (its holder died) passes to the next owner within
// its remaining lease. A waiter whose process died is evicted when its
// turn comes and nobody hears it (a Redisson waiter after a grace of 3
// seconds); no deadline evicts a live Go waiter. Deadlines in the queue
// are Redisson's (WithFairWaitTimeout), so Go and Java waiters keep one
// order: docs/lock-kinds.md ("Fair mode") tells how.
//
// A name should be locked in one mode only: a Mutex and a FairMutex on the
// same name still exclude each other, but the Mutex ignores the queue, and
// each kind's Unlock wakes only waiters of its own kind (the other kind's
// retry after their timed sleep).
type FairMutex struct {
	handle
	q *queue.Queue
}

// NewFairMutex returns a new owner of the fair lock called name: each call
// is a distinct owner with its own owner id and its own wake-up channel.
// Locking again through a *FairMutex that holds the lock waits for its
// Unlock, as a Mutex does; Reenter re-enters it. The name is the lock's
// Redis key; the queue and the deadlines live in
// redisson_lock_queue:{name} and redisson_lock_timeout:{name}. An empty
// name, or one with braces but no hash tag (see ErrInvalidName), yields a
// FairMutex whose every operation returns an error wrapping ErrInvalidName.
func (c *Client) NewFairMutex(name string) *FairMutex { return c.newFairMutex(name, KindFairMutex) }

// newFairMutex is NewFairMutex of kind k: KindFairMutex, or KindElection
// for a leader election's lock, whose events and Activity say so.
func (c *Client) newFairMutex(name string, k Kind) *FairMutex {
	f := &FairMutex{q: queue.New(c.rdb, name, c.opts.fairWaitTimeout, c.queuePublish)}
	id := c.ids.Next()
	f.init(c, name, id, keys.Channel(name), &fair{q: f.q, held: scripts.Held{Key: name, Owner: id}, kind: k, renewer: fairRenewerOf.in(c).Renewer}, newFairTurns(c, f.q, id))
	return f
}

// fairRenewer renews a Client's fair locks (queue.NewRenewer).
type fairRenewer struct{ scripts.Renewer }

// fairRenewerOf is each Client's fairRenewer.
var fairRenewerOf = newKindState(func(c *Client) *fairRenewer {
	return &fairRenewer{queue.NewRenewer(c.opts.fairWaitTimeout)}
})

// lockOwn is Lock for a FairMutex that no other goroutine uses (a
// Campaign makes one for each term): it takes no slot of the handle's
// line, which nobody else could hold.
func (f *FairMutex) lockOwn(ctx context.Context) error {
	if err := f.usable(); err != nil {
		return opError("lock", f.name, err)
	}
	_, err := f.c.waitLoop(ctx, f.turns.start(&f.owner, 0), noDeadline)
	return opError("lock", f.name, err)
}

// fair is Redisson's RFairLock: a reentrant lock whose waiters queue.
type fair struct {
	q       *queue.Queue
	held    scripts.Held
	kind    Kind            // KindFairMutex, or KindElection
	renewer scripts.Renewer // the Client's (queue.NewRenewer)
}

// attempt takes the lock if it can right now, and never queues: the
// queueing attempts are the turn's (fairTurn).
func (k *fair) attempt(ctx context.Context, rdb redis.Scripter, lease time.Duration, count int) (outcome, error) {
	a, err := k.q.TryAcquire(ctx, rdb, k.held.Owner, lease, count)
	return fairOutcome(a), err
}

func (k *fair) release(ctx context.Context, u scripts.Unlock) (scripts.Reply, error) {
	return k.q.Release(ctx, u)
}

func (k *fair) forceRelease(ctx context.Context, _ string) (bool, error) {
	return k.q.ForceRelease(ctx)
}

func (k *fair) renewal() renewal { return renewal{k.renewer, k.held} }

func (k *fair) describe() (Kind, string) { return k.kind, "" }

func (k *fair) bare() bool { return false }
