package queue

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/internal/keys"
)

// waitQueue is a queue in Redis as a Place uses it: the fair lock's, or
// the fair read-write lock's.
type waitQueue interface {
	attempt(ctx context.Context, rdb redis.Scripter, owner string, lease time.Duration, count int, m mode, wait string) (Attempt, error)
	leave(ctx context.Context, owner string) error
	Heartbeat() time.Duration
}

// Place is one owner's place in the queue, from its first queueing attempt
// until it holds the lock or leaves. The owner must be listening on its
// channel (subscription confirmed) before the first Attempt, or the
// wake-up for its turn could be missed. A Place is used by one goroutine.
type Place struct {
	q      waitQueue
	owner  string
	id     string // this wait's id in grant messages; "" when the queue grants nothing
	queued bool   // an attempt queued the owner and it has not left since
}

// Attempt takes or re-enters the lock as TryAcquire does; otherwise it
// queues the owner at the tail, or keeps the owner's place, refreshing its
// deadline. An owner that was queued and found itself evicted goes back to
// the head (see the package doc).
func (p *Place) Attempt(ctx context.Context, rdb redis.Scripter, lease time.Duration, count int) (Attempt, error) {
	m := join
	if p.queued {
		m = stay
	}
	a, err := p.q.attempt(ctx, rdb, p.owner, lease, count, m, p.id)
	// After an error the owner may or may not be queued: Leave finds out.
	p.queued = err != nil || !a.Acquired
	return a, err
}

// Grant is the message that tells this wait, on the owner's channel, that
// a release granted it the lock: the owner holds it from then on, with the
// lease of its last attempt, and may confirm with Claim (its release
// clears the grant's mark in any case). It is "" for a queue
// that grants nothing (the fair read-write lock's). A grant message of an
// earlier wait of the owner is another message.
func (p *Place) Grant() string {
	if p.id == "" {
		return ""
	}
	return keys.GrantPrefix + p.id
}

// Claim confirms a grant that the owner heard of (Grant) and re-arms the
// lease: Acquired is false when the lock is no longer the owner's (it
// expired first). It never queues the owner nor takes a free lock.
func (p *Place) Claim(ctx context.Context, rdb redis.Scripter, lease time.Duration) (Attempt, error) {
	return p.q.attempt(ctx, rdb, p.owner, lease, 1, claim, p.id)
}

// Pause is how long the waiter may sleep after the attempt a, unless woken:
// at most the lock's TTL while it is held, since an expiry announces
// nothing (the head takes the lock then; a waiter behind a dead head
// evicts it); at most a heartbeat, so that a head keeps its deadline
// fresh. When the lock is free but the head behind which the waiter
// queues has not taken it yet, the attempt tells a relock head's lease as
// the TTL (the head may take the lock and die unannounced); behind any
// other head the waiter sleeps at most freeRecheck.
func (p *Place) Pause(a Attempt) time.Duration {
	d := p.q.Heartbeat()
	switch {
	case a.TTL > 0 || (a.TTL == 0 && a.Position == 0):
		d = min(d, max(a.TTL, time.Millisecond))
	case a.TTL == 0:
		d = min(d, freeRecheck)
	}
	return d
}

// freeRecheck bounds the sleep of a waiter that found the lock free behind
// a head that has not taken it and whose lease it cannot tell: the head
// may take the lock and die, which nobody announces.
const freeRecheck = time.Second

// Leave takes the owner out of the queue, if an attempt put it there: the
// deadlines behind it move up, and if its leaving gives the next waiter
// its turn, that one is woken. It is safe to call more than once.
func (p *Place) Leave(ctx context.Context) error {
	if !p.queued {
		return nil
	}
	if err := p.q.leave(ctx, p.owner); err != nil {
		return err
	}
	p.queued = false
	return nil
}
