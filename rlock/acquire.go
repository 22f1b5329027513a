package rlock

import (
	"context"
	"errors"
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
	deadline, err := o.begin(ctx, wait)
	if err != nil {
		return outcome{}, err
	}
	t := o.turns.start(o, deadline)
	defer func() { t.done(ctx, out.ok) }()
	var sleep time.Duration // before the next attempt
	entered := false
	if wait != 0 && !o.holding() {
		sleep, entered = t.enter(ctx)
	}
	if !entered {
		out, err = o.attempt(ctx, lease, t)
		if out.ok || err != nil || wait == 0 {
			return out, err
		}
		var listening bool
		if sleep, listening, err = t.listen(ctx, out); !listening {
			return outcome{}, err
		}
	}
	for {
		if !deadline.IsZero() {
			left := time.Until(deadline)
			if left <= 0 {
				return outcome{}, nil
			}
			sleep = min(sleep, left)
		}
		if sleep > 0 {
			if err := t.sleep(ctx, sleep); err != nil {
				if errors.Is(err, errWaitElapsed) {
					err = nil
				}
				return outcome{}, err
			}
			if err := ctx.Err(); err != nil {
				return outcome{}, err
			}
		}
		if out, err = o.attempt(ctx, lease, t); out.ok || err != nil {
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
	if o.c.closed() {
		return outcome{}, ErrClosed
	}
	h := o.hold
	if h != nil && h.isOver() {
		h, o.hold = nil, nil
	}
	// A reentrant acquisition keeps the lease mode of the hold.
	renew, holds := lease == 0, 0
	if h != nil {
		lease, renew, holds = h.terms()
	} else if renew {
		lease = o.c.opts.watchdogTimeout
	}
	ctx = context.WithoutCancel(ctx)
	sent := time.Now()
	var out outcome
	var err error
	if o.c.opts.replicas > 0 {
		out, err = o.attemptReplicated(ctx, lease, holds, t)
	} else {
		out, err = t.attempt(ctx, o.c.rdb, lease, holds)
	}
	if !out.ok || err != nil {
		out.ok = false
		return out, err
	}
	if h != nil {
		h.reentered(sent)
	} else {
		o.hold = newHold(o.name, o.kind.renewal(), lease, renew, sent)
		o.c.wd.keep(o.hold)
	}
	// An Unlock that failed before is not retried by the next one: the
	// owner locked again instead.
	o.retryLatch = ""
	return out, nil
}

// sleepFor is how long a waiter may sleep, unless woken, after an attempt
// that found the lock with time to live ttl.
func (o *owner) sleepFor(ttl time.Duration) time.Duration {
	switch {
	case ttl > 0:
		return ttl
	case ttl == 0:
		return time.Millisecond // expiring within the millisecond
	default:
		// No TTL on the key: not one of ours; check again after a lease.
		return o.c.opts.watchdogTimeout
	}
}
