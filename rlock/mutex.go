package rlock

import (
	"context"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/internal/keys"
	"github.com/relock-go/relock/scripts"
)

// Mutex is one owner of a distributed reentrant lock, which behaves like a
// sync.Mutex for the goroutines that share it: while one of them holds it,
// another's Lock waits in the process (no command to Redis, ctx honoured)
// until Unlock, and TryLock with no wait returns false at once. Share one
// *Mutex per critical section among a process's goroutines, as one would
// a sync.Mutex; other processes, and other Mutexes of the same name, are
// excluded through Redis.
//
// Re-entry is explicit: Reenter adds a hold to the lock the Mutex holds,
// and each hold needs its Unlock, the count kept in the lock's hash as
// Redisson's RLock keeps it. The methods are safe for concurrent use.
type Mutex struct {
	owner
}

// NewMutex returns a new owner of the lock called name: each call is a
// distinct owner with its own owner id. The name is the lock's Redis key.
// An empty name, or one with braces but no hash tag (see ErrInvalidName),
// yields a Mutex whose every operation returns an error wrapping
// ErrInvalidName.
func (c *Client) NewMutex(name string) *Mutex {
	m := &Mutex{}
	id := c.ids.Next()
	m.init(c, name, id, keys.Channel(name), newReentrant(c, name, id, false), clientTurns{})
	m.handoff = true
	return m
}

// Lock acquires the lock, waiting as long as it takes or until ctx ends,
// and returns ctx.Err() then. While another goroutine holds this Mutex,
// Lock waits for its Unlock first, in the process. The watchdog keeps renewing the lease (the
// watchdog timeout) until the last Unlock, until the Client is closed, or
// until the lock is lost (see Lost).
func (m *Mutex) Lock(ctx context.Context) error { return lockForever(ctx, m.name, m.acquire) }

// LockWithLease acquires the lock like Lock, but with a fixed lease: the
// lock expires lease after its last acquisition or partial release unless
// fully released before, and no watchdog renews it.
func (m *Mutex) LockWithLease(ctx context.Context, lease time.Duration) error {
	return lockWithLease(ctx, m.name, lease, m.acquire)
}

// TryLock acquires the lock if it can within wait: wait 0 is a single
// attempt, which returns false at once while another goroutine holds this
// Mutex; a positive wait bounds the wait for it and for Redis together. A
// positive lease is fixed (no watchdog); lease 0 lets the
// watchdog keep the lock as Lock does. It returns (true, nil) when the lock
// is held, (false, nil) when wait elapsed first, and (false, ctx.Err())
// when ctx ended first. Negative durations are errors.
func (m *Mutex) TryLock(ctx context.Context, wait, lease time.Duration) (bool, error) {
	return tryLock(ctx, m.name, wait, lease, m.acquire)
}

func (m *Mutex) acquire(ctx context.Context, wait, lease time.Duration) (bool, error) {
	out, err := m.owner.enter(ctx, wait, lease)
	return out.ok, err
}

// Unlock releases one acquisition. Releasing the last one deletes the lock
// and wakes a waiter; releasing an inner one re-arms the hold's lease. It
// returns an error wrapping ErrNotHeld when this owner does not hold the
// lock, whether it never did or lost it (expiry, force-unlock), and
// always once Lost has closed: the owner stopped holding then. A request
// that go-redis retries after a lost reply is applied once.
//
// Unlock is safe with a ctx that has ended (a request's, in a deferred
// call): the release is still sent, detached from ctx and bounded by
// WithUnlockTimeout, and Unlock returns nil when it succeeds. If Redis
// cannot be reached, Unlock returns the error, the watchdog stops renewing
// the lock, and it expires within its lease (Lost closes then); calling
// Unlock again before that retries the same release.
func (m *Mutex) Unlock(ctx context.Context) error { return m.exit(ctx) }

// Reenter adds one hold to the lock this Mutex holds, without waiting:
// the hash's hold count goes up by one, as a re-entry of Redisson's RLock
// does, and one more Unlock is needed to release it. It returns an error
// wrapping ErrNotHeld when this Mutex holds no lock (never locked, fully
// unlocked, or lost). A hold taken with a fixed lease keeps it; the
// watchdog keeps the others. Re-entry is explicit: Lock on a Mutex that a
// goroutine holds waits for its Unlock, as sync.Mutex does.
func (m *Mutex) Reenter(ctx context.Context) error { return m.reenter(ctx, nil) }

// ForceUnlock deletes the lock whoever holds it and wakes a waiter; it
// reports whether there was a lock. Its owner learns of the loss at its
// next renewal or Unlock. Meant for operators, not for the lock's users.
func (m *Mutex) ForceUnlock(ctx context.Context) (bool, error) { return m.forceRelease(ctx) }

// Locker returns m as a sync.Locker, for code that takes one: it excludes
// the goroutines that use it, and other owners, as Lock does, with no
// deadline. Since sync.Locker cannot return an
// error, both methods panic with it, an *Error (a closed Client, Redis
// unreachable, Unlock of a lock not held), as sync.Mutex does on an unlock
// of an unlocked mutex. Prefer the Mutex methods wherever errors can be handled.
func (m *Mutex) Locker() sync.Locker { return locker{m.Lock, m.Unlock} }

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
