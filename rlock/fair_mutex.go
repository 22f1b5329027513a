package rlock

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/queue"
	"github.com/relock-go/relock/scripts"
)

// FairMutex is one owner of a distributed reentrant lock granted in
// arrival order: Redisson's RFairLock. Owners that must wait join a queue
// in Redis and take the lock strictly in turn; a newcomer never gets ahead
// of a waiting owner, not even with a single-attempt TryLock while the lock
// is free and the next owner is about to take it. It is reentrant, owned
// by the *FairMutex, and safe for concurrent use, exactly as Mutex. An
// owner has one place in the queue: goroutines sharing a FairMutex take
// turns waiting in it, and when the one in line gives up, the place is
// given up and the next of them queues anew.
//
// Each waiter is woken on its own channel, and Unlock wakes the next owner
// only; a lock that expires without Unlock (its holder died) passes to the
// next owner within its remaining lease. A waiter that gives up (its wait
// elapsed, its ctx ended) leaves the queue at once, and one whose process
// died is evicted about the fair wait timeout (WithFairWaitTimeout) after
// reaching the head of the queue; a live waiter is never evicted. See
// package queue for the protocol.
//
// A name should be locked in one mode only. A Mutex and a FairMutex on the
// same name still exclude each other, and neither corrupts the other's
// state, but the Mutex ignores the queue (it may take a free lock ahead of
// the fair waiters), and each kind's Unlock wakes only waiters of its own
// kind: a waiter of the other kind retries after its timed sleep (a
// Mutex waiter after the lock's TTL as it last saw it, a FairMutex waiter
// after a heartbeat, a third of the fair wait timeout).
type FairMutex struct {
	owner
	q *queue.Queue
	// waiting is held by the one goroutine of this owner that waits in the
	// queue: an owner has one place in line, and the goroutines sharing it
	// take turns, so that one giving up or being served cannot leave
	// another believing it still has the place.
	waiting chan struct{}

	// linger is the confirmed subscription of this owner's last wait, kept
	// for a heartbeat after it got the lock: an owner that locks again soon
	// joins the queue at once, without a first attempt and a new
	// subscription. It is closed when its timer fires unused.
	lingerMu    sync.Mutex
	linger      waiter
	lingerTimer *time.Timer
}

// NewFairMutex returns a new owner of the fair lock called name: each call
// is a distinct owner with its own owner id and its own wake-up channel,
// and locking again through the same *FairMutex re-enters the lock. The
// name is the lock's Redis key; the queue and the deadlines live in
// redisson_lock_queue:{name} and redisson_lock_timeout:{name}. An empty
// name yields a FairMutex whose every operation returns an error wrapping
// ErrInvalidName.
func (c *Client) NewFairMutex(name string) *FairMutex {
	f := &FairMutex{q: queue.New(c.rdb, name, c.opts.fairWaitTimeout, c.publishCommand), waiting: make(chan struct{}, 1)}
	f.init(c, name, func(ctx context.Context, lease time.Duration, latch string) (scripts.Release, error) {
		return f.q.Release(ctx, f.id, lease, latch, c.latchTTL)
	})
	return f
}

// Lock acquires the lock in turn, waiting as long as it takes or until ctx
// ends, and returns ctx.Err() then (having left the queue). The watchdog
// keeps renewing the lease until the last Unlock, as for Mutex.Lock.
func (f *FairMutex) Lock(ctx context.Context) error { return lockForever(ctx, f.name, f.acquire) }

// LockWithLease acquires the lock like Lock, but with a fixed lease, as
// Mutex.LockWithLease.
func (f *FairMutex) LockWithLease(ctx context.Context, lease time.Duration) error {
	return lockWithLease(ctx, f.name, lease, f.acquire)
}

// TryLock acquires the lock if its turn comes within wait: wait 0 is a
// single attempt, which succeeds only if the lock is free and nobody
// waits (or this owner holds it already), and never queues. A positive
// lease is fixed; lease 0 lets the watchdog keep the lock. It returns
// (true, nil) when the lock is held, (false, nil) when wait elapsed first
// and (false, ctx.Err()) when ctx ended first; either way this owner has
// left the queue. Negative durations are errors.
func (f *FairMutex) TryLock(ctx context.Context, wait, lease time.Duration) (bool, error) {
	return tryLock(ctx, f.name, wait, lease, f.acquire)
}

// acquire makes one attempt that never queues; if it must wait, it listens
// on its own channel, then queues and retries until its turn comes, the
// wait (forever when negative) elapses or ctx ends, and leaves the queue
// unless it got the lock.
func (f *FairMutex) acquire(ctx context.Context, wait, lease time.Duration) (ok bool, err error) {
	m := &f.owner
	deadline, err := m.begin(ctx, wait)
	if err != nil {
		return false, err
	}
	// Still subscribed from a recent wait: join the queue at once (the
	// join attempt takes a free lock nobody waits for, as TryAcquire does).
	// A holder re-entering takes the short way below.
	lingering := wait != 0 && !m.holding() && f.hasLinger()
	if !lingering {
		ok, _, err = m.attemptWith(ctx, lease, func(ctx context.Context, rdb redis.Scripter, lease time.Duration, holds int) (bool, time.Duration, error) {
			a, err := f.q.TryAcquire(ctx, rdb, m.id, lease, holds)
			return a.Acquired, a.TTL, err
		})
		if ok || err != nil || wait == 0 {
			return ok, err
		}
	}

	if !f.takeWaiting(ctx, deadline) {
		if err := ctx.Err(); err != nil {
			return false, err
		}
		if m.c.closed() {
			return false, ErrClosed
		}
		return false, nil // the wait elapsed
	}
	defer func() { <-f.waiting }()

	// Listen first: the release that makes this owner's turn is published
	// once, on its own channel, possibly right after it joins the queue.
	w := f.takeLinger()
	if w == nil {
		if w, err = m.c.newWaiter(ctx, deadline, f.q.Channel(m.id)); err != nil || w == nil {
			return false, err
		}
	}
	defer func() {
		switch {
		case w == nil:
		case ok:
			f.keepLinger(w)
		default:
			w.close()
		}
	}()
	qw := f.q.Waiter(m.id)
	defer func() {
		if !ok {
			// Leave even when ctx has ended; when Redis cannot be reached,
			// the place is evicted later, as a dead waiter's.
			_, _ = persist(m.c, ctx, func(ctx context.Context) (struct{}, error) {
				return struct{}{}, qw.Leave(ctx)
			})
		}
	}()
	for {
		var a queue.Attempt
		ok, _, err = m.attemptWith(ctx, lease, func(ctx context.Context, rdb redis.Scripter, lease time.Duration, holds int) (bool, time.Duration, error) {
			var err error
			a, err = qw.Attempt(ctx, rdb, lease, holds)
			return a.Acquired, a.TTL, err
		})
		if ok || err != nil {
			return ok, err
		}
		sleep := qw.Pause(a)
		if !deadline.IsZero() {
			left := time.Until(deadline)
			if left <= 0 {
				return false, nil
			}
			sleep = min(sleep, left)
		}
		err = w.wait(ctx, sleep)
		if errors.Is(err, errMoved) {
			// Subscribe again, on the channel's new master; the retry that
			// follows catches a wake-up missed meanwhile.
			if w, err = m.c.rewait(ctx, w, deadline, f.q.Channel(m.id)); w == nil {
				return false, err
			}
		}
		if err != nil {
			return false, err
		}
		if err = ctx.Err(); err != nil {
			return false, err
		}
	}
}

// hasLinger reports whether a subscription of a recent wait is kept.
func (f *FairMutex) hasLinger() bool {
	f.lingerMu.Lock()
	defer f.lingerMu.Unlock()
	return f.linger != nil
}

// takeLinger hands over the kept subscription, if any, to a new wait.
func (f *FairMutex) takeLinger() waiter {
	f.lingerMu.Lock()
	defer f.lingerMu.Unlock()
	w := f.linger
	f.linger = nil
	if f.lingerTimer != nil {
		f.lingerTimer.Stop()
	}
	return w
}

// keepLinger keeps w, the subscription of a wait that got the lock, for a
// heartbeat.
func (f *FairMutex) keepLinger(w waiter) {
	f.lingerMu.Lock()
	defer f.lingerMu.Unlock()
	if f.linger != nil || f.c.closed() {
		w.close()
		return
	}
	f.linger = w
	if f.lingerTimer == nil {
		f.lingerTimer = time.AfterFunc(f.q.Heartbeat(), f.dropLinger)
	} else {
		f.lingerTimer.Reset(f.q.Heartbeat())
	}
}

// dropLinger closes the kept subscription, unused for a heartbeat.
func (f *FairMutex) dropLinger() {
	if w := f.takeLinger(); w != nil {
		w.close()
	}
}

// takeWaiting waits until no other goroutine of this owner is waiting in
// the queue, and reports false if ctx ends, the Client closes or the
// deadline (none when zero) passes first.
func (f *FairMutex) takeWaiting(ctx context.Context, deadline time.Time) bool {
	select {
	case f.waiting <- struct{}{}:
		return true
	default:
	}
	var expired <-chan time.Time
	if !deadline.IsZero() {
		t := time.NewTimer(time.Until(deadline))
		defer t.Stop()
		expired = t.C
	}
	select {
	case f.waiting <- struct{}{}:
		return true
	case <-ctx.Done():
	case <-f.c.ctx.Done():
	case <-expired:
	}
	return false
}

// Unlock releases one acquisition, as Mutex.Unlock. Releasing the last one
// deletes the lock and wakes the next owner in the queue only. It returns
// an error wrapping ErrNotHeld when this owner does not hold the lock; if
// the lock has expired meanwhile, the next owner is woken all the same.
func (f *FairMutex) Unlock(ctx context.Context) error {
	return f.unlock(ctx)
}

// ForceUnlock deletes the lock whoever holds it and wakes the next owner in
// the queue; it reports whether there was a lock. The queue is kept. Meant
// for operators, not for the lock's users.
func (f *FairMutex) ForceUnlock(ctx context.Context) (bool, error) {
	if err := f.usable(); err != nil {
		return false, opError("force unlock", f.name, err)
	}
	if _, err := f.c.pubsub(ctx); err != nil {
		return false, opError("force unlock", f.name, err)
	}
	ok, err := f.q.ForceRelease(ctx)
	return ok, opError("force unlock", f.name, err)
}

// Locker returns f as a sync.Locker, with the semantics of Mutex.Locker.
func (f *FairMutex) Locker() sync.Locker { return locker{f.Lock, f.Unlock} }
