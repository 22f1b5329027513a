package rlock

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/internal/keys"
	"github.com/relock-go/relock/scripts"
)

// Mutex is one owner of a distributed reentrant lock. The owner holds the
// lock as many times as it locked it, and must unlock it as many times.
//
// Ownership belongs to the *Mutex, not to a goroutine: goroutines that share
// a *Mutex share its ownership, so a second goroutine's Lock re-enters the
// lock instead of waiting. Give each goroutine that must exclude the others
// its own Mutex (Client.NewMutex). The methods are safe for concurrent use.
type Mutex struct {
	c       *Client
	name    string
	owner   string
	channel string

	// mu serialises this owner's commands that change the lock, so that the
	// local view (hold, count) follows Redis in the same order.
	mu    sync.Mutex
	hold  *hold // current hold; nil when not held
	count int   // acquisitions not yet released, as seen by this Mutex
}

// Name is the lock's name, which is also its Redis key.
func (m *Mutex) Name() string { return m.name }

// Owner is this owner's id, "<client id>:<sequence>": the lock hash's field.
func (m *Mutex) Owner() string { return m.owner }

// usable returns the error every operation reports for a Mutex that cannot
// be used: an empty name or a closed Client.
func (m *Mutex) usable() error {
	switch {
	case m.name == "":
		return ErrInvalidName
	case m.c.closed():
		return ErrClosed
	}
	return nil
}

// Lock acquires the lock, waiting as long as it takes or until ctx ends,
// and returns ctx.Err() then. The watchdog keeps renewing the lease (the
// watchdog timeout) until the last Unlock, until the Client is closed, or
// until the lock is lost (see Lost).
func (m *Mutex) Lock(ctx context.Context) error {
	_, err := m.acquire(ctx, -1, 0)
	return err
}

// LockWithLease acquires the lock like Lock, but with a fixed lease: the
// lock expires lease after its last acquisition or partial release unless
// fully released before, and no watchdog renews it.
func (m *Mutex) LockWithLease(ctx context.Context, lease time.Duration) error {
	if lease <= 0 {
		return fmt.Errorf("rlock: lease %v: must be positive", lease)
	}
	_, err := m.acquire(ctx, -1, lease)
	return err
}

// TryLock acquires the lock if it can within wait: wait 0 is a single
// attempt. A positive lease is fixed (no watchdog); lease 0 lets the
// watchdog keep the lock as Lock does. It returns (true, nil) when the lock
// is held, (false, nil) when wait elapsed first, and (false, ctx.Err())
// when ctx ended first. Negative durations are errors.
func (m *Mutex) TryLock(ctx context.Context, wait, lease time.Duration) (bool, error) {
	if wait < 0 {
		return false, fmt.Errorf("rlock: wait %v: must not be negative", wait)
	}
	if lease < 0 {
		return false, fmt.Errorf("rlock: lease %v: must not be negative", lease)
	}
	return m.acquire(ctx, wait, lease)
}

// acquire tries, then waits and retries until held, the wait (forever when
// negative) elapses, or ctx ends. Waiters subscribe before they retry, so a
// release between an attempt and the subscription is never missed.
func (m *Mutex) acquire(ctx context.Context, wait, lease time.Duration) (bool, error) {
	if err := m.usable(); err != nil {
		return false, err
	}
	if err := ctx.Err(); err != nil {
		return false, err
	}
	var deadline time.Time
	if wait > 0 {
		deadline = time.Now().Add(wait)
	}
	ok, ttl, err := m.attempt(ctx, lease)
	if ok || err != nil || wait == 0 {
		return ok, err
	}

	w, err := m.c.newWaiter(ctx, deadline, m.channel)
	if err != nil || w == nil {
		return false, err
	}
	defer w.close()
	for {
		if ok, ttl, err = m.attempt(ctx, lease); ok || err != nil {
			return ok, err
		}
		sleep := ttl
		switch {
		case ttl == 0:
			// Expiring within the millisecond.
			sleep = time.Millisecond
		case ttl < 0:
			// No TTL on the key: not one of ours; check again after a lease.
			sleep = m.c.opts.watchdogTimeout
		}
		if !deadline.IsZero() {
			left := time.Until(deadline)
			if left <= 0 {
				return false, nil
			}
			sleep = min(sleep, left)
		}
		if err := w.wait(ctx, sleep); err != nil {
			return false, err
		}
		if err := ctx.Err(); err != nil {
			return false, err
		}
	}
}

// attempt runs the acquire script once.
func (m *Mutex) attempt(ctx context.Context, lease time.Duration) (bool, time.Duration, error) {
	return m.attemptWith(ctx, lease, func(ctx context.Context, lease time.Duration) (bool, time.Duration, error) {
		return scripts.Acquire(ctx, m.c.rdb, m.name, m.owner, lease)
	})
}

// attemptWith runs one acquisition attempt, try, with the lease the hold
// needs, and records a success in the hold (FairMutex passes its own try).
// The call is not cut short by ctx: its outcome must be known, or a lock
// could be taken that nobody holds.
func (m *Mutex) attemptWith(ctx context.Context, lease time.Duration, try func(context.Context, time.Duration) (bool, time.Duration, error)) (bool, time.Duration, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.c.closed() {
		return false, 0, ErrClosed
	}
	wd := m.c.wd
	if m.hold != nil && wd.isLost(m.hold) {
		m.hold, m.count = nil, 0
	}
	// A reentrant acquisition keeps the lease mode of the hold.
	renew := lease == 0
	if m.hold != nil {
		lease, renew = m.hold.lease, m.hold.renew
	} else if renew {
		lease = m.c.opts.watchdogTimeout
	}
	sent := time.Now()
	ok, ttl, err := try(context.WithoutCancel(ctx), lease)
	if !ok || err != nil {
		return false, ttl, err
	}
	if m.hold != nil {
		wd.extend(m.hold, sent)
	} else {
		m.hold = wd.add(m.name, m.owner, lease, renew, sent)
	}
	m.count++
	return true, 0, nil
}

// Unlock releases one acquisition. Releasing the last one deletes the lock
// and wakes a waiter; releasing an inner one re-arms the hold's lease. It
// returns an error wrapping ErrNotHeld when this owner does not hold the
// lock, whether it never did or lost it (expiry, force-unlock).
func (m *Mutex) Unlock(ctx context.Context) error {
	return m.unlockWith(ctx, func(ctx context.Context, lease time.Duration) (scripts.Release, error) {
		return scripts.ReleaseHold(ctx, m.c.rdb, m.name, m.channel, keys.UnlockMessage, m.owner, lease, scripts.Publish)
	})
}

// unlockWith releases one acquisition with release, which runs a release
// script with the hold's lease, and updates the hold by its outcome
// (FairMutex passes its own release).
func (m *Mutex) unlockWith(ctx context.Context, release func(context.Context, time.Duration) (scripts.Release, error)) error {
	if err := m.usable(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	wd := m.c.wd
	lease := m.c.opts.watchdogTimeout
	if h := m.hold; h != nil {
		lease = h.lease
		wd.releasing(h, true)
		defer wd.releasing(h, false)
	}
	sent := time.Now()
	res, err := release(ctx, lease)
	if err != nil {
		return err
	}
	switch res {
	case scripts.StillHeld:
		m.count--
		if m.hold != nil {
			wd.extend(m.hold, sent)
		}
		return nil
	case scripts.Released:
		if m.hold != nil {
			wd.release(m.hold)
		}
		m.hold, m.count = nil, 0
		return nil
	}
	if m.hold != nil {
		// Held as far as this Mutex knew: the lock was lost meanwhile.
		wd.releasing(m.hold, false)
		wd.lose(m.hold)
	}
	m.hold, m.count = nil, 0
	return fmt.Errorf("rlock: unlock %q: %w", m.name, ErrNotHeld)
}

// Lost returns a channel that is closed when the current hold of the lock
// is lost without Unlock: a renewal found the lock gone (expired or
// force-unlocked), renewals could not reach Redis before the lease ran out,
// a fixed lease ran out, or the Client was closed. Once lost, the owner
// must stop relying on the lock. The lease end is reckoned from when the
// command that set it was sent, so Lost closes no later than Redis expires
// the lock, possibly a round trip before; an Unlock in that moment still
// releases it, and ErrNotHeld after. When the Mutex does not hold the lock,
// Lost returns nil.
func (m *Mutex) Lost() <-chan struct{} {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.hold == nil {
		return nil
	}
	return m.hold.lost
}

// HoldCount is how many times this owner holds the lock: 0 when it does not.
func (m *Mutex) HoldCount(ctx context.Context) (int, error) {
	if err := m.usable(); err != nil {
		return 0, err
	}
	n, err := m.c.rdb.HGet(ctx, m.name, m.owner).Int()
	if errors.Is(err, redis.Nil) {
		return 0, nil
	}
	return n, err
}

// IsLocked reports whether any owner holds the lock.
func (m *Mutex) IsLocked(ctx context.Context) (bool, error) {
	if err := m.usable(); err != nil {
		return false, err
	}
	n, err := m.c.rdb.Exists(ctx, m.name).Result()
	return n == 1, err
}

// IsHeld reports whether this owner holds the lock.
func (m *Mutex) IsHeld(ctx context.Context) (bool, error) {
	if err := m.usable(); err != nil {
		return false, err
	}
	return m.c.rdb.HExists(ctx, m.name, m.owner).Result()
}

// TTL is the lock's remaining time to live, whoever holds it; 0 when the
// lock is not held.
func (m *Mutex) TTL(ctx context.Context) (time.Duration, error) {
	if err := m.usable(); err != nil {
		return 0, err
	}
	ms, err := m.c.rdb.Do(ctx, "pttl", m.name).Int64()
	if err != nil || ms < 0 {
		return 0, err
	}
	return time.Duration(ms) * time.Millisecond, nil
}

// ForceUnlock deletes the lock whoever holds it and wakes a waiter; it
// reports whether there was a lock. Its owner learns of the loss at its
// next renewal or Unlock. Meant for operators, not for the lock's users.
func (m *Mutex) ForceUnlock(ctx context.Context) (bool, error) {
	if err := m.usable(); err != nil {
		return false, err
	}
	return scripts.ForceRelease(ctx, m.c.rdb, m.name, m.channel, keys.UnlockMessage, scripts.Publish)
}
