package rlock

import (
	"context"
	"errors"
	"time"

	"github.com/relock-go/relock/scripts"
)

// Lost returns a channel that is closed when the current hold of the lock
// is lost without Unlock: a renewal found the lock gone (expired or
// force-unlocked), renewals could not reach Redis before the lease ran out,
// a fixed lease ran out, an Unlock that could not reach Redis left it to
// expire, or the Client was closed. Once lost, the owner must stop relying
// on the lock. The lease end is reckoned from when the command that set it
// was sent, and Lost closes a margin before it (1% of the lease plus 2 ms,
// against clock drift and a timer that fires late), so it closes before
// Redis expires the lock and lets another owner in; an Unlock in that
// moment still releases it, and ErrNotHeld after. A call made once that
// moment has passed finds the hold lost and returns the closed channel,
// even before the timer that watches the lease has fired (a process that
// resumes from a pause runs its goroutines first). When this owner holds
// nothing, Lost returns a closed channel, so a select on it never blocks
// forever; it is never nil.
func (o *owner) Lost() <-chan struct{} {
	if h := o.currentHold(); h != nil {
		h.expire()
		return h.lostChan()
	}
	return closedChan
}

// Context returns a copy of parent that is cancelled when the current hold
// ends: lost (context.Cause is ErrLost; ErrClosed when the Client was
// closed) or fully released by Unlock (ErrNotHeld), or when parent ends,
// or when the returned cancel is called. Run the work the lock guards
// under it, so that it stops when the lock is no longer held; check its
// Err before each write the lock guards: like Lost, it finds the hold
// lost once the moment has passed, before the timer fires (contexts
// derived from it learn of it when Done closes). When this owner holds
// nothing, the context is already cancelled with ErrNotHeld. It starts no
// goroutine; call cancel when done with it.
func (o *owner) Context(parent context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(parent)
	h := o.currentHold()
	stop := o.whenEnds(cancel)
	done := func() {
		stop()
		cancel(context.Canceled)
	}
	if h == nil {
		return ctx, done
	}
	return checkedContext{ctx, h.expire}, done
}

// checkedContext is the Context of a hold (or of what a hold keeps, an
// election's term). Its Err first runs check, which ends the hold as lost
// when the loss moment has passed: a process that resumes from a pause
// longer than the lease runs its goroutines before the watchdog's timer,
// and a check of Err before a write must see the loss all the same. Done
// closes when the watchdog's timer ends the hold, and so do the contexts
// derived from it.
type checkedContext struct {
	context.Context
	check func()
}

func (c checkedContext) Err() error {
	c.check()
	return c.Context.Err()
}

// whenEnds arranges for end to be called with the cause when the current
// hold ends, or at once with ErrNotHeld when there is none. The returned
// function cancels the arrangement.
func (o *owner) whenEnds(end func(error)) (cancel func()) {
	h := o.currentHold()
	if h == nil {
		end(ErrNotHeld)
		return func() {}
	}
	return h.onEnd(end)
}

// lose ends the owner's hold, if it has one, as lost now: a command of
// its own found the lock gone (why).
func (o *owner) lose(why string) {
	if h := o.currentHold(); h != nil {
		h.lostNow(why, false)
	}
}

// Extend sets the lease of this owner's hold to lease from now, in Redis
// and for the hold's later re-arms (reentry, partial Unlock), and moves
// Lost's deadline with it: sooner as well as later. It is for holds taken
// with a fixed lease (LockWithLease, TryLock with a lease); the watchdog
// keeps the others, and Extend refuses them. It returns an error wrapping
// ErrNotHeld when this owner does not hold the lock (never did, released
// it, or lost it: then Lost is closed), and one wrapping
// ErrInvalidDuration, sending nothing, for a lease of 0, a negative one or
// one below 1ms.
func (o *owner) Extend(ctx context.Context, lease time.Duration) error {
	if err := checkLease(lease); err != nil {
		return opError("extend", o.name, err)
	}
	if err := o.usable(); err != nil {
		return opError("extend", o.name, err)
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.settle()
	h := o.hold
	if h == nil || h.isOver() {
		return opError("extend", o.name, ErrNotHeld)
	}
	if _, renew, _ := h.terms(); renew {
		return opError("extend", o.name, errors.New("the watchdog renews this hold: Extend is for fixed leases"))
	}
	sent := time.Now()
	r := h.renewal
	renewed, errs := r.renew.Renew(ctx, o.c.rdb, lease, [][]scripts.Held{{r.held}})
	if errs[0] != nil {
		return opError("extend", o.name, errs[0])
	}
	if !renewed[0][0] {
		h.lostNow(lostAtExtend, false)
		o.hold = nil
		return opError("extend", o.name, ErrNotHeld)
	}
	h.setLease(lease, sent)
	return nil
}
