package rlock

import (
	"context"
	"errors"
	"time"
)

// take is the one wait loop of every acquisition: of a lock (owner.enter,
// owner.reenter), of a semaphore's permits, of a latch's zero
// (countHandle.acquire). It attempts, and while the attempts fail sleeps
// until woken or the pause after the last attempt (capped by the remaining
// wait) passes, then attempts again, until one succeeds, the wait (forever
// when negative; 0: a single attempt) elapses, or ctx ends. The turn t
// decides whom the acquisition waits behind in this process, what each
// attempt is and where it listens; a waiter listens before it retries, so
// a release between an attempt and the subscription is never missed. The
// acquisition's events and its place among the Client's waiters
// (Activity) come from here, for every kind.
func (c *Client) take(ctx context.Context, t turn, wait time.Duration) (out outcome, err error) {
	p := progress{c: c, t: t, ctx: ctx, start: time.Now()}
	defer func() { p.finish(out, err) }()
	if err := c.begin(ctx); err != nil {
		return outcome{}, err
	}
	var deadline time.Time
	if wait > 0 {
		deadline = p.start.Add(wait)
	}
	sleep, entered, err := t.enter(ctx, deadline, wait == 0, p.waiting)
	defer func() { t.done(ctx, out.ok) }()
	if err != nil {
		return outcome{}, elapsed(err)
	}
	if !entered {
		out, err = p.attempt(ctx)
		if out.ok || err != nil || wait == 0 {
			return out, err
		}
		var listening bool
		if sleep, listening, err = t.listen(ctx, out); !listening {
			return outcome{}, err
		}
		p.waiting()
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
			woken, err := t.sleep(ctx, sleep)
			if err != nil {
				return outcome{}, elapsed(err)
			}
			if woken {
				p.woken()
			}
			if err := ctx.Err(); err != nil {
				return outcome{}, err
			}
		}
		if out, err = p.attempt(ctx); out.ok || err != nil {
			return out, err
		}
		sleep = t.pause(out)
	}
}

// begin checks that an acquisition may start: the Client is open, ctx has
// not ended, and the Client's pub/sub is decided.
func (c *Client) begin(ctx context.Context) error {
	if c.closed() {
		return ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	_, err := c.pubsub(ctx)
	return err
}

// elapsed is nil for errWaitElapsed (the wait ended, which is no error),
// else err.
func elapsed(err error) error {
	if errors.Is(err, errWaitElapsed) {
		return nil
	}
	return err
}

// progress is what one acquisition has done so far, for the Client's
// events and its list of waiters.
type progress struct {
	c        *Client
	t        turn
	ctx      context.Context // the caller's
	start    time.Time
	attempts int
	wakeups  int
	granted  bool    // the last attempt was a grant heard of
	w        *waiter // listed while the acquisition waits
}

// attempt makes one attempt of the acquisition, in one of the Client's
// attempt slots. (A grant is not an attempt: no script ran.)
func (p *progress) attempt(ctx context.Context) (outcome, error) {
	if err := p.c.attempts.take(ctx); err != nil {
		return outcome{}, err
	}
	out, err := p.t.attempt(ctx)
	p.c.attempts.give()
	p.granted = out.granted
	if !out.granted {
		p.attempts++
		if p.w != nil {
			p.w.attempts.Store(int64(p.attempts))
		}
	}
	return out, err
}

// waiting records that the acquisition waits: it is listed among the
// Client's waiters until it ends. Once is enough.
func (p *progress) waiting() {
	if p.w != nil {
		return
	}
	p.w = &waiter{info: p.t.waiter()}
	p.w.info.Since = p.start
	p.w.attempts.Store(int64(p.attempts))
	p.c.waiters.add(p.w)
	if obs := p.c.obs; obs != nil {
		obs.ObserveLock(p.event(EventWaitStarted))
	}
}

// woken records a wake-up by a release.
func (p *progress) woken() {
	p.wakeups++
	p.w.wakeups.Store(int64(p.wakeups))
	if obs := p.c.obs; obs != nil {
		obs.ObserveLock(p.event(EventWoken))
	}
}

// finish ends the acquisition with its outcome.
func (p *progress) finish(out outcome, err error) {
	if p.w != nil {
		p.c.waiters.remove(p.w)
	}
	obs := p.c.obs
	if obs == nil {
		return
	}
	if !out.ok {
		e := p.event(EventNotAcquired)
		e.Err = err
		obs.ObserveLock(e)
		return
	}
	e := p.event(EventAcquired)
	p.t.acquired(&e)
	e.Granted = p.granted
	obs.ObserveLock(e)
}

// event is an event of the acquisition's, with what it has done so far.
func (p *progress) event(t EventType) Event {
	w := p.t.waiter()
	e := Event{Type: t, Time: time.Now(), Name: w.Name, Kind: w.Kind, Mode: w.Mode, Owner: w.Owner, Context: p.ctx}
	e.Wait = e.Time.Sub(p.start)
	e.Attempts, e.Wakeups, e.Waited = p.attempts, p.wakeups, p.w != nil
	return e
}
