package rlock

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"
)

// take is the one wait loop of every kind of lock. It attempts, and
// while the lock is busy sleeps until woken or the TTL seen (capped by
// the remaining wait) passes, then attempts again, until the lock is held,
// the wait (forever when negative) elapses, or ctx ends. The owner's turn
// policy decides what each attempt is, whom to wait behind and where to
// listen; a waiter listens before it retries, so a release between an
// attempt and the subscription is never missed.
func (o *owner) take(ctx context.Context, wait, lease time.Duration) (out outcome, err error) {
	a := progress{o: o, ctx: ctx, start: time.Now()}
	defer func() { a.finish(out, err) }()
	deadline, err := o.begin(ctx, wait)
	if err != nil {
		return outcome{}, err
	}
	t := o.turns.start(o, deadline, lease)
	defer func() { t.done(ctx, out.ok) }()
	var sleep time.Duration // before the next attempt
	entered := false
	if wait != 0 && !o.holding() {
		sleep, entered = t.enter(ctx)
	}
	if !entered {
		out, err = a.attempt(ctx, lease, t)
		if out.ok || err != nil || wait == 0 {
			return out, err
		}
		var listening bool
		if sleep, listening, err = t.listen(ctx, out); !listening {
			return outcome{}, err
		}
	}
	a.waiting()
	for {
		if !deadline.IsZero() {
			left := time.Until(deadline)
			if left <= 0 {
				return outcome{}, nil
			}
			sleep = min(sleep, left)
		}
		if sleep > 0 {
			woken, err := t.sleep(ctx, sleep)
			if err != nil {
				if errors.Is(err, errWaitElapsed) {
					err = nil
				}
				return outcome{}, err
			}
			if woken {
				a.woken()
			}
			if err := ctx.Err(); err != nil {
				return outcome{}, err
			}
		}
		if out, err = a.attempt(ctx, lease, t); out.ok || err != nil {
			return out, err
		}
		sleep = t.pause(out)
	}
}

// begin checks that an acquisition may start, decides the Client's
// pub/sub if need be, and returns the deadline of the wait (zero when it
// has none).
func (o *owner) begin(ctx context.Context, wait time.Duration) (time.Time, error) {
	if err := o.usable(); err != nil {
		return time.Time{}, err
	}
	if err := ctx.Err(); err != nil {
		return time.Time{}, err
	}
	if _, err := o.c.pubsub(ctx); err != nil {
		return time.Time{}, err
	}
	if wait > 0 {
		return time.Now().Add(wait), nil
	}
	return time.Time{}, nil
}

// attempt makes the attempt t says, with the lease the hold needs, and
// records a success in the hold. The call is not cut short by ctx: its
// outcome must be known, or a lock could be taken that nobody holds.
func (o *owner) attempt(ctx context.Context, lease time.Duration, t turn) (outcome, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.settle()
	if o.c.closed() {
		return outcome{}, ErrClosed
	}
	if t.handedOff() {
		return outcome{ok: true, pos: -1, granted: true}, nil
	}
	h := o.hold
	if h != nil && h.isOver() {
		h, o.hold = nil, nil
	}
	// A reentrant acquisition keeps the lease mode of the hold.
	var renew bool
	var holds int
	if h != nil {
		lease, renew, holds = h.terms()
	} else {
		lease, renew = o.leaseOf(lease)
	}
	if ctx.Done() != nil {
		ctx = context.WithoutCancel(ctx)
	}
	sent := time.Now()
	var out outcome
	var err error
	if o.c.opts.replicas > 0 {
		out, err = o.attemptReplicated(ctx, lease, holds, t)
	} else {
		out, err = t.attempt(ctx, o.c.rdb, lease, holds)
	}
	if out.granted {
		// No attempt was sent: the grant was made after the last one.
		sent = o.lastSent
	}
	o.lastSent = sent
	if !out.ok || err != nil {
		out.ok = false
		return out, err
	}
	if h != nil {
		h.reentered(sent)
	} else {
		o.hold = newHold(o, lease, renew, sent)
		o.c.wd.keep(o.hold)
		o.waited = t.listened()
	}
	if out.granted && !renew {
		// A hold the watchdog keeps needs no claim: its lease, reckoned
		// from the last attempt, has at least half to run (the turn takes
		// a grant only then), the watchdog renews it sooner, and its
		// release clears the grant's mark. A lease of the caller's is
		// confirmed, so that it runs from the grant.
		o.confirm(t.(claimer), lease, o.hold)
	}
	// An Unlock that failed before is not retried by the next one: the
	// owner locked again instead.
	o.retrySeq, o.bareSeq = 0, 0
	return out, nil
}

// claimer is a turn that can be granted the lock by a release.
type claimer interface {
	// claim confirms the grant and re-arms the lease; false when the lock
	// is no longer the owner's.
	claim(ctx context.Context, lease time.Duration) (bool, error)
}

// confirm claims, in the background, the grant through which the owner
// took hold h with lease: the hold's lease is known to last from when the
// claim is sent, or the hold is lost if the claim finds the lock gone. The
// owner's next command waits for it (settle); Close too. Called with mu
// held.
func (o *owner) confirm(c claimer, lease time.Duration, h *hold) {
	o.c.wireMu.Lock()
	defer o.c.wireMu.Unlock()
	if o.c.closed() {
		return // the hold ends with the Client
	}
	done := make(chan struct{})
	o.claiming = done
	o.c.background.Add(1)
	go func() {
		defer o.c.background.Done()
		defer close(done)
		ctx, cancel := context.WithTimeout(o.c.ctx, o.c.opts.unlockTimeout)
		defer cancel()
		sent := time.Now()
		ok, err := c.claim(ctx, lease)
		switch {
		case err != nil:
			// Unknown: renewals, or the lease's end, tell.
		case ok:
			h.renewed(sent)
		default:
			h.lostNow(lostAtClaim, false)
		}
	}()
}

// sleepFor is how long a waiter may sleep, unless woken, after an attempt
// that found the lock with time to live ttl: until the lock expires, less
// up to a quarter of the TTL at random, so that the waiters of many locks
// taken and renewed together, which see the same TTLs, do not all retry at
// once; never longer, so that a lost release message costs at most the
// TTL.
func (o *owner) sleepFor(ttl time.Duration) time.Duration {
	switch {
	case ttl > 0:
		return ttl - rand.N(ttl/4+1)
	case ttl == 0:
		return time.Millisecond // expiring within the millisecond
	default:
		// No TTL on the key: not one of ours; check again after a lease.
		return o.c.opts.watchdogTimeout
	}
}

// progress is what one acquisition has done so far, for the Client's
// events and its list of waiters.
type progress struct {
	o        *owner
	ctx      context.Context // the caller's
	start    time.Time
	attempts int
	wakeups  int
	granted  bool    // the last attempt was a grant heard of
	w        *waiter // listed while the acquisition waits
}

// attempt makes one attempt of the acquisition.
// (A grant is not an attempt: no script ran.)
func (a *progress) attempt(ctx context.Context, lease time.Duration, t turn) (outcome, error) {
	if err := a.o.c.attempts.take(ctx); err != nil {
		return outcome{}, err
	}
	out, err := a.o.attempt(ctx, lease, t)
	a.o.c.attempts.give()
	a.granted = out.granted
	if !out.granted {
		a.attempts++
		if a.w != nil {
			a.w.attempts.Store(int64(a.attempts))
		}
	}
	return out, err
}

// waiting records that the acquisition waits: it is listed among the
// Client's waiters until it ends.
func (a *progress) waiting() {
	a.w = &waiter{info: WaiterInfo{Name: a.o.name, Kind: a.o.kindOf, Mode: a.o.mode, Owner: a.o.id, Since: a.start}}
	a.w.attempts.Store(int64(a.attempts))
	a.o.c.waiters.add(a.w)
	if obs := a.o.c.obs; obs != nil {
		obs.ObserveLock(a.event(EventWaitStarted))
	}
}

// woken records a wake-up by a release.
func (a *progress) woken() {
	a.wakeups++
	a.w.wakeups.Store(int64(a.wakeups))
	if obs := a.o.c.obs; obs != nil {
		obs.ObserveLock(a.event(EventWoken))
	}
}

// finish ends the acquisition with its outcome.
func (a *progress) finish(out outcome, err error) {
	if a.w != nil {
		a.o.c.waiters.remove(a.w)
	}
	obs := a.o.c.obs
	if obs == nil {
		return
	}
	if !out.ok {
		e := a.event(EventNotAcquired)
		e.Err = err
		obs.ObserveLock(e)
		return
	}
	e := a.event(EventAcquired)
	if h := a.o.currentHold(); h != nil {
		e.Lease, e.Watchdog, e.Count = h.terms()
		e.Reentry = e.Count > 1
	}
	e.Granted = a.granted
	obs.ObserveLock(e)
}

// event is an event of the acquisition's, with what it has done so far.
func (a *progress) event(t EventType) Event {
	e := a.o.event(t)
	e.Context = a.ctx
	e.Wait = e.Time.Sub(a.start)
	e.Attempts, e.Wakeups, e.Waited = a.attempts, a.wakeups, a.w != nil
	return e
}
