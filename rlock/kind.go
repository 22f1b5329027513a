package rlock

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/scripts"
)

// kind is one kind of lock as the engine drives it: the scripts that
// take, release and force-release one owner's hold, and what the watchdog
// renews for it. A handle makes one per owner, with its keys computed once.
// A new kind of lock is a kind (and its scripts); waiting, holds, renewal
// and release are the engine's.
type kind interface {
	// attempt makes one acquisition attempt on rdb for an owner that holds
	// the lock holds times already (as it knows), with lease.
	attempt(ctx context.Context, rdb redis.Scripter, lease time.Duration, holds int) (outcome, error)
	// release releases one hold, as u asks.
	release(ctx context.Context, u scripts.Unlock) (scripts.Release, error)
	// forceRelease deletes the lock whoever holds it and wakes its
	// waiters, announcing with publish; it reports whether there was one.
	forceRelease(ctx context.Context, publish string) (bool, error)
	// renewal is what the watchdog renews for a hold of this owner.
	renewal() renewal
	// describe is the kind's name and, for a side of a read-write lock,
	// its mode.
	describe() (Kind, string)
}

// outcome is what one acquisition attempt found.
type outcome struct {
	ok    bool          // the owner holds the lock now
	ttl   time.Duration // when not, the lock's TTL: negative when it has none
	pos   int           // a fair lock's queue place (0: the head); -1 when not queued
	token int64         // a fenced acquisition's token
	// granted: the owner made no attempt: a release in its Client passed
	// it the lock (see handoffs), or a fair lock's grant message told it
	// that it holds the lock: the lease was set when the grant was made,
	// after its last attempt, and the turn's claim confirms it.
	granted bool
}

// reentrant is Redisson's RLock (Mutex) and, fenced, its RFencedLock
// (FencedMutex): one field of the lock's hash per owner.
type reentrant struct {
	rdb    redis.UniversalClient
	lock   *scripts.Lock
	held   scripts.Held
	fenced bool
}

func newReentrant(c *Client, name, id string, fenced bool) *reentrant {
	return &reentrant{rdb: c.rdb, lock: scripts.NewLock(name), held: scripts.Held{Key: name, Owner: id}, fenced: fenced}
}

func (k *reentrant) attempt(ctx context.Context, rdb redis.Scripter, lease time.Duration, holds int) (outcome, error) {
	take := k.lock.Acquire
	if k.fenced {
		take = k.lock.AcquireFenced
	}
	a, err := take(ctx, rdb, k.held.Owner, lease, holds)
	return outcome{ok: a.OK, ttl: a.TTL, pos: -1, token: a.Token}, err
}

func (k *reentrant) release(ctx context.Context, u scripts.Unlock) (scripts.Release, error) {
	return k.lock.Release(ctx, k.rdb, u)
}

func (k *reentrant) forceRelease(ctx context.Context, publish string) (bool, error) {
	return k.lock.ForceRelease(ctx, k.rdb, publish)
}

func (k *reentrant) renewal() renewal { return renewal{scripts.HashRenewer, k.held} }

func (k *reentrant) describe() (Kind, string) {
	if k.fenced {
		return KindFencedMutex, ""
	}
	return KindMutex, ""
}
