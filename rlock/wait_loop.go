package rlock

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// waitLoop is the one wait loop of every acquisition: of a lock (owner.enter,
// owner.reenter), of a semaphore's permits, of a latch's zero
// (countHandle.acquire). It does all their waiting. The turn t says where
// to wait before each attempt (see turn) and what the attempt is; the loop
// waits there and attempts, until an attempt succeeds, the deadline passes
// (none when zero; one that has passed when the acquisition begins allows
// a single attempt), or ctx ends. A waiter listens before it retries, so a
// release between an attempt and the subscription is never missed.
//
// The acquisition's events and its place among the Client's waiters
// (Activity) come from here, for every kind.
func (c *Client) waitLoop(ctx context.Context, t turn, deadline time.Time) (out outcome, err error) {
	p := progress{c: c, t: t, who: t.waiter(), ctx: ctx, start: time.Now()}
	defer func() { p.finish(out, err) }()
	if err := c.begin(ctx); err != nil {
		return outcome{}, err
	}
	single := !deadline.IsZero() && !deadline.After(p.start)
	w := t.enter(single)
	defer func() { t.done(ctx, out.ok) }()
	for {
		if ok, err := p.wait(ctx, w, deadline, single); !ok {
			return outcome{}, err
		}
		if out, err = p.attempt(ctx); out.ok || err != nil || single {
			return out, err
		}
		w = t.next(out)
	}
}

// waitThrough is the wait loop of an acquisition through a lock handle
// (owner.enter). It first takes entry, the slot of the handle's line,
// which the handle keeps while it holds the lock: the goroutines sharing
// the handle take turns there, as at a sync.Mutex, without a command to
// Redis. That is not yet the acquisition, which begins once the slot is
// held; the entry then tells its afresh, and the handle drops what is
// left of a hold that lapsed (owner.dropLapsed). It does so even beside
// other slots of the line: one of them may be the read slot an RUnlock
// that failed keeps for its retry, and an acquisition that re-entered that
// hold would renew a read nobody holds. An acquisition that fails leaves
// the slot.
func (c *Client) waitThrough(ctx context.Context, entry *slot, t turn, deadline time.Time) (out outcome, err error) {
	if ok, err := c.takeEntry(ctx, entry, t.waiter(), deadline); !ok {
		return outcome{}, err
	}
	if entry.afresh != nil {
		err = entry.afresh.dropLapsed(ctx)
	}
	if err == nil {
		out, err = c.waitLoop(ctx, t, deadline)
	}
	if !out.ok {
		entry.leave()
	}
	return out, err
}

// takeEntry takes entry, the slot of the lock handle an acquisition goes
// through, for who. While it waits there, behind another goroutine of the
// handle, the goroutine is listed among the Client's waiters, with no
// attempt and no event: so Activity, Inspect's Local and /debug/locks show
// each goroutine that waits for the lock, where Redis shows the owner
// once. It tries once first, so that an uncontended acquisition lists
// nothing, and only tries when the deadline has passed.
func (c *Client) takeEntry(ctx context.Context, entry *slot, who WaiterInfo, deadline time.Time) (bool, error) {
	if entry.try() || passed(deadline) {
		return entry.held, nil
	}
	w := &waiter{info: who}
	w.info.Since = time.Now()
	c.waiters.add(w)
	defer c.waiters.remove(w)
	return entry.take(ctx, deadline)
}

// wait waits where w says, before the acquisition's next attempt (see
// wait). It reports false when the acquisition ends there: with ctx.Err(),
// ErrClosed or a Redis error, or none when its deadline passed.
func (p *progress) wait(ctx context.Context, w wait, deadline time.Time, single bool) (bool, error) {
	if w == (wait{}) {
		return true, nil
	}
	if vain, err := inVain(ctx, w, deadline); vain {
		return false, err
	}
	if w.listen == nil && !single {
		p.waiting()
	}
	if ok, err := p.ready(ctx, w, deadline); !ok {
		if w.optional || errors.Is(err, errUnconfirmed) {
			return true, nil
		}
		return false, err
	}
	if w.listen != nil {
		p.waiting()
	}
	d := w.sleep
	if !w.until.IsZero() {
		d = time.Until(w.until)
	}
	if !deadline.IsZero() {
		left := time.Until(deadline)
		if left <= 0 {
			return false, nil
		}
		d = min(d, left)
	}
	if d <= 0 {
		return true, nil
	}
	if ok, err := p.sleep(ctx, w.listen, d, deadline); !ok {
		return false, err
	}
	if err := ctx.Err(); err != nil {
		return false, err
	}
	return true, nil
}

// inVain reports that w must wait until a moment after the acquisition's
// deadline, or ctx's (then with an error wrapping
// context.DeadlineExceeded): waiting is in vain, and the acquisition ends
// at once (see wait.until).
func inVain(ctx context.Context, w wait, deadline time.Time) (bool, error) {
	switch d, ok := ctx.Deadline(); {
	case w.until.IsZero() || w.optional:
		return false, nil
	case !deadline.IsZero() && w.until.After(deadline):
		return true, nil
	case ok && w.until.After(d):
		return true, fmt.Errorf("the next attempt is due in %v, after ctx's deadline: %w", time.Until(w.until).Round(time.Millisecond), context.DeadlineExceeded)
	}
	return false, nil
}

// errUnconfirmed tells wait that Redis has not confirmed the subscription
// in time (unconfirmedBy): the waiter attempts again all the same.
var errUnconfirmed = errors.New("subscription not confirmed")

// unconfirmedBy is when a subscription that Redis has not confirmed stops
// delaying the acquisition's next attempt: once the sleep w asks for has
// passed, or a health-check interval if that is longer, as if a release
// message had been lost. Within the interval a connection confirms or is
// replaced, so a waiter listens before it retries whenever Redis answers
// at all; one that never confirms (its subscriptions refused, or lost
// again and again) costs each attempt that long, never a hang.
func (p *progress) unconfirmedBy(w wait) time.Time {
	d := w.sleep
	if !w.until.IsZero() {
		d = time.Until(w.until)
	}
	return time.Now().Add(max(d, p.c.opts.healthCheck))
}

// ready takes w's slot and begins its listening, where not done already.
// It reports false when it cannot: with why (none when the deadline
// passed first, errUnconfirmed when the subscription was not confirmed by
// unconfirmedBy).
func (p *progress) ready(ctx context.Context, w wait, deadline time.Time) (bool, error) {
	if s := w.slot; s != nil && !s.held {
		if ok, err := s.take(ctx, deadline); !ok {
			return false, err
		}
	}
	if l := w.listen; l != nil && l.s == nil {
		if l.kept != nil {
			l.s = l.kept.takeKept()
		}
		if l.s == nil {
			by := p.unconfirmedBy(w)
			until := deadline
			if until.IsZero() || by.Before(until) {
				until = by
			}
			if ok, err := l.subscribe(ctx, until); !ok {
				if err == nil && until.Equal(by) {
					err = errUnconfirmed
				}
				return false, err
			}
		}
		if l.listener != nil {
			l.listener.listened()
		}
	}
	return true, nil
}

// sleep sleeps d on l, or on a timer when nil, unless a release wakes it
// first. A subscription that moved to another master is replaced: the
// attempt that follows catches a release missed meanwhile. It reports
// false when the acquisition ends: with why (none when the deadline passed
// first).
func (p *progress) sleep(ctx context.Context, l *listening, d time.Duration, deadline time.Time) (bool, error) {
	if l == nil {
		err := sleepOnTimer(ctx, d, p.c.ctx.Done())
		return err == nil, err
	}
	woken, err := l.s.sleep(ctx, d)
	switch {
	case errors.Is(err, errMoved):
		l.s.close()
		return l.subscribe(ctx, deadline)
	case err != nil:
		return false, err
	case woken:
		p.woken()
	}
	return true, nil
}

// take takes the slot, waiting in its line until deadline (one try when
// it has passed), ctx's end or the line's Close.
func (s *slot) take(ctx context.Context, deadline time.Time) (bool, error) {
	ok, err := s.line.enter(ctx, s.shared, deadline)
	s.held = ok
	return ok, err
}

// subscribe listens on l's channel, subscribing anew. It reports false
// when it cannot: with why (none when the deadline passed first).
func (l *listening) subscribe(ctx context.Context, deadline time.Time) (bool, error) {
	s, err := l.c.sleepers().listen(ctx, deadline, l.channel)
	l.s = s
	return s != nil, err
}
