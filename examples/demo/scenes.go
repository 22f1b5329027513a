package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/relock-go/relock/rlock"
)

// contention starts every service at once; each takes the lock
// cfg.Increments times to increment the counter. Waiters sleep until the
// holder's Unlock is announced on the lock's pub/sub channel.
func (d *demo) contention(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type result struct {
		s           *service
		longestWait time.Duration
		err         error
	}
	results := make(chan result, len(d.services))
	for _, s := range d.services {
		go func() {
			longest, err := d.incrementRepeatedly(ctx, s)
			if err != nil {
				cancel() // stop the others too
			}
			results <- result{s, longest, err}
		}()
	}
	var errs []error
	var slowest result
	for range d.services {
		r := <-results
		errs = append(errs, r.err)
		if r.longestWait > slowest.longestWait {
			slowest = r
		}
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	if slowest.s != nil {
		slowest.s.say("waited longest: %v for one acquisition", slowest.longestWait.Round(time.Millisecond))
		d.tl.note("This lock is not fair: a woken waiter races every other service for it, newcomers included.")
	}
	return nil
}

// incrementRepeatedly is one service's share of the contention scene. It
// returns the longest the service waited for the lock.
func (d *demo) incrementRepeatedly(ctx context.Context, s *service) (time.Duration, error) {
	// One Mutex per service: each Mutex is a distinct owner. Goroutines
	// sharing one *Mutex would share its ownership and not exclude each other.
	m := s.locks.NewMutex(lockName)
	var longest time.Duration
	for range d.cfg.Increments {
		waited, err := d.lockedIncrement(ctx, s, m)
		if err != nil {
			return 0, err
		}
		longest = max(longest, waited)
		// Other work, outside the lock, between two updates.
		if err := sleep(ctx, d.cfg.Work/2); err != nil {
			return 0, err
		}
	}
	return longest, nil
}

// lockedIncrement increments the counter under m. It returns how long it
// waited for the lock.
func (d *demo) lockedIncrement(ctx context.Context, s *service, m *rlock.Mutex) (time.Duration, error) {
	waited, err := s.lock(ctx, m)
	if err != nil {
		return 0, err
	}
	n, err := d.increment(ctx, s, m)
	if err != nil {
		// Best effort, even if ctx ended: otherwise the lease ends the hold.
		_ = m.Unlock(context.WithoutCancel(ctx))
		return 0, err
	}
	return waited, s.unlock(ctx, m, "counter %d -> %d, unlocks", n-1, n)
}

// increment has s increment the counter under m, and counts it.
func (d *demo) increment(ctx context.Context, s *service, m *rlock.Mutex) (int, error) {
	n, err := s.increment(ctx, m, d.cfg.Work)
	if err != nil {
		return 0, err
	}
	d.increments.Add(1)
	return n, nil
}

// reentrancy has a holder call a function that takes the same lock again:
// it re-enters it explicitly through the same *Mutex (Reenter: HoldCount
// 2; a second Lock would wait for the first Unlock, as sync.Mutex does)
// and must unlock as many times.
func (d *demo) reentrancy(ctx context.Context) error {
	s := d.service(0)
	m := s.locks.NewMutex(lockName)
	if _, err := s.lock(ctx, m); err != nil {
		return err
	}
	if err := s.reportHoldCount(ctx, m, "in the outer section"); err != nil {
		return err
	}
	if err := d.incrementSelfLocked(ctx, s, m); err != nil {
		return err
	}
	if err := s.reportHoldCount(ctx, m, "back in the outer section, still locked"); err != nil {
		return err
	}
	if err := s.unlock(ctx, m, "unlocks the outer hold"); err != nil {
		return err
	}
	return s.reportHoldCount(ctx, m, "the lock is free")
}

// incrementSelfLocked takes one more hold of the lock its caller holds,
// so that it stays locked for as long as the function needs it.
func (d *demo) incrementSelfLocked(ctx context.Context, s *service, m *rlock.Mutex) error {
	if err := m.Reenter(ctx); err != nil {
		return err
	}
	if err := s.reportHoldCount(ctx, m, "re-enters the lock through the same Mutex (Reenter)"); err != nil {
		return err
	}
	n, err := d.increment(ctx, s, m)
	if err != nil {
		_ = m.Unlock(context.WithoutCancel(ctx))
		return err
	}
	return s.unlock(ctx, m, "counter %d -> %d, unlocks the inner hold", n-1, n)
}

// tryLock has one service hold the lock while another tries to take it
// with a short wait, and gives up when the wait is over.
func (d *demo) tryLock(ctx context.Context) error {
	holder, impatient := d.service(1), d.service(2)
	hm := holder.locks.NewMutex(lockName)
	if _, err := holder.lock(ctx, hm); err != nil {
		return err
	}
	holder.say("keeps it for a long job")

	im := impatient.locks.NewMutex(lockName)
	impatient.say("TryLock(wait %v): is willing to wait only that long", d.cfg.TryWait)
	start := time.Now()
	ok, err := im.TryLock(ctx, d.cfg.TryWait, 0)
	if err != nil {
		return err
	}
	if ok {
		return errors.New("TryLock acquired a lock another service holds")
	}
	impatient.say("gives up: TryLock returned false after %v; it does something else",
		time.Since(start).Round(time.Millisecond))

	return holder.unlock(ctx, hm, "finishes the long job, unlocks")
}

// watchdog has one service hold the lock for several leases: Lock took no
// lease, so the Client's watchdog renews it every lease/3 and it never
// expires. Meanwhile another service waits, asleep until the release.
func (d *demo) watchdog(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	holder, waiter := d.service(3), d.service(0)
	hm := holder.locks.NewMutex(lockName)
	if _, err := holder.lock(ctx, hm); err != nil {
		return err
	}
	holder.say("starts a stock-take that needs the lock for %v (%.1f leases)",
		d.cfg.LongHold, float64(d.cfg.LongHold)/float64(d.cfg.Lease))
	holder.say("Lock took no lease: the watchdog resets the TTL to %v every %v",
		d.cfg.Lease, (d.cfg.Lease / 3).Round(time.Millisecond))

	waited := make(chan error, 1)
	go func() {
		_, err := d.lockedIncrement(ctx, waiter, waiter.locks.NewMutex(lockName))
		waited <- err
	}()

	err := d.holdLong(ctx, holder, hm)
	if err != nil {
		cancel() // the waiter would otherwise wait for a release that may never come
	}
	return errors.Join(err, <-waited)
}

// holdLong keeps m for cfg.LongHold, printing its TTL: each renewal puts it
// back up to the full lease, so it never reaches zero.
func (d *demo) holdLong(ctx context.Context, s *service, m *rlock.Mutex) error {
	start := time.Now()
	tick := time.NewTicker(d.cfg.Lease / 2)
	defer tick.Stop()
	for time.Since(start) < d.cfg.LongHold {
		select {
		case <-tick.C:
		case <-m.Lost():
			return fmt.Errorf("%s: %w while the watchdog should renew it", s.name, rlock.ErrLost)
		case <-ctx.Done():
			return ctx.Err()
		}
		ttl, err := m.TTL(ctx)
		if err != nil {
			return err
		}
		s.say("holds it for %v so far: TTL %v of the %v lease",
			time.Since(start).Round(time.Millisecond), ttl, d.cfg.Lease)
	}
	return s.unlock(ctx, m, "stock-take done after %v, lock never lost, unlocks",
		time.Since(start).Round(time.Millisecond))
}

// fixedLease has a service take the lock with a fixed lease, which the
// watchdog does not renew, for a job that takes longer: the lock expires,
// its Lost channel is closed and the job, run under a context tied to it,
// stops; the next service gets the lock, and the first one's Unlock finds
// nothing to release.
func (d *demo) fixedLease(ctx context.Context) error {
	s, next := d.service(1), d.service(2)
	m := s.locks.NewMutex(lockName)
	if err := m.LockWithLease(ctx, d.cfg.Lease); err != nil {
		return err
	}
	s.say("acquires %s with LockWithLease(%v): a fixed lease, no watchdog", m.Name(), d.cfg.Lease)
	jobCtx, stop := m.Context(ctx) // ends when the hold is lost
	defer stop()

	job := 3 * d.cfg.Lease
	s.say("starts a job that takes %v, longer than the lease", job)
	start := time.Now()
	if err := sleep(jobCtx, job); err == nil || ctx.Err() != nil {
		return errors.Join(errors.New("the fixed lease did not run out"), ctx.Err())
	}
	if cause := context.Cause(jobCtx); !errors.Is(cause, rlock.ErrLost) {
		return fmt.Errorf("the job's context ended with %v, want rlock.ErrLost", cause)
	}
	s.say("Lost() closed after %v: the lease ran out, so the job stops (m.Context ended, cause ErrLost)",
		time.Since(start).Round(time.Millisecond))

	if _, err := d.lockedIncrement(ctx, next, next.locks.NewMutex(lockName)); err != nil {
		return err
	}
	if err := m.Unlock(ctx); !errors.Is(err, rlock.ErrNotHeld) {
		return fmt.Errorf("unlock after the lease ran out: got %v, want ErrNotHeld", err)
	}
	s.say("Unlock returns ErrNotHeld: the lock was no longer its to release")
	return nil
}
