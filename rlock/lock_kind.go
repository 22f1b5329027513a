package rlock

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/scripts"
)

// lockKind is one kind of lock as the engine drives it: the scripts that
// take, release and force-release one owner's hold, and what the watchdog
// renews for it. A handle makes one per owner, with its keys computed once.
// A new kind of lock is a lockKind (and its scripts); waiting, holds,
// renewal and release are the engine's.
type lockKind interface {
	// attempt makes one acquisition attempt on rdb for an owner whose
	// hold count is count (as it knows it), with lease.
	attempt(ctx context.Context, rdb redis.Scripter, lease time.Duration, count int) (outcome, error)
	// release releases one acquisition, as u asks, and reports who listened on
	// the lock's channel when the release was heard or passed on, if its
	// script counts them (a reentrant lock's).
	release(ctx context.Context, u scripts.Unlock) (scripts.Reply, error)
	// forceRelease deletes the lock whoever holds it and wakes its
	// waiters, announcing with publish; it reports whether there was one.
	forceRelease(ctx context.Context, publish string) (bool, error)
	// renewal is what the watchdog renews for a hold of this owner.
	renewal() renewal
	// describe is the kind's name and, for a side of a read-write lock,
	// its mode.
	describe() (Kind, string)
	// bare reports whether a release of the last acquisition that passes
	// the lock to nobody may be sent bare (scripts.Unlock.Bare): once
	// unrecorded, then recorded if resent.
	bare() bool
}

// outcome is what one acquisition attempt found.
type outcome struct {
	// ok: the owner holds the lock now (a counting object's acquisition:
	// it took what it waits for).
	ok bool
	// ttl is, when not, the lock's TTL (negative when it has none); for a
	// counting object, how long to wait for a release before the next
	// attempt (countTurn).
	ttl time.Duration
	// granted: the owner made no attempt: a release in its Client passed
	// it the lock (see recipient), or a fair lock's grant message told it
	// that it holds the lock: the lease was set when the grant was made,
	// after its last attempt, and the turn's claim confirms it.
	granted bool
	// What a success took, for its event (EventAcquired): a lock owner's
	// hold, or a counting object's count of permits.
	hold  *hold
	count int
}

// uncounted is the reply of a release script that counts no listeners.
func uncounted(r scripts.Release, err error) (scripts.Reply, error) {
	return scripts.Reply{Outcome: r}, err
}
