package rlock

import (
	"context"
	"math/rand/v2"
	"time"
)

// attempt makes the attempt of the lock owner's turn t, with the lease the
// hold needs, under the owner's mutex, and records a success in the hold.
// The call is not cut short by ctx: its outcome must be known, or a lock
// could be taken that nobody holds.
func (o *owner) attempt(ctx context.Context, lease time.Duration, t ownerTurn) (outcome, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.settle()
	if o.c.closed() {
		return outcome{}, ErrClosed
	}
	if t.handedOff() {
		return outcome{ok: true, granted: true, hold: o.hold}, nil
	}
	h := o.hold
	if h != nil && h.isOver() {
		h, o.hold = nil, nil
	}
	// A reentrant acquisition keeps the lease mode of the hold.
	var renew bool
	var count int
	if h != nil {
		lease, renew, count = h.terms()
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
		out, err = o.attemptReplicated(ctx, lease, count, t)
	} else {
		out, err = t.send(ctx, o.c.sender, lease, count)
	}
	if out.granted {
		// No attempt was sent: the grant was made after the last one.
		sent = o.lastSent
	}
	o.lastSent = sent
	if !out.ok || err != nil {
		out.ok = false
		return out, named(ctx, o.c.rdb, o.name, "lock", err)
	}
	if h != nil {
		h.reentered(sent)
	} else {
		o.hold = newHold(o, lease, renew, sent)
		o.c.wd.keep(o.hold)
		o.waited = t.waited()
	}
	if out.granted && !renew {
		// A hold the watchdog keeps needs no claim: its lease, reckoned
		// from the last attempt, has five sixths to run (the turn takes a
		// grant only then), the watchdog renews it sooner, and its
		// release clears the grant's mark. A lease of the caller's is
		// confirmed, so that it runs from the grant.
		o.confirm(t.(claimer), lease, o.hold)
	}
	// An Unlock that failed before is not retried by the next one: the
	// owner locked again instead.
	o.retrySeq, o.bareSeq = 0, 0
	out.hold = o.hold
	return out, nil
}

// leaseOf is the lease the hold of an acquisition asked with lease (0:
// the watchdog's) is taken with, and whether the watchdog renews it.
func (o *owner) leaseOf(lease time.Duration) (time.Duration, bool) {
	if lease == 0 {
		return o.c.opts.watchdogTimeout, true
	}
	return lease, false
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
	done := make(chan struct{})
	started := o.c.goBackground(func() {
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
	})
	if started { // else the hold ends with the Client
		o.claiming = done
	}
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
