package rlock

import (
	"context"
	"time"
)

// progress is what one acquisition has done so far, for the Client's
// events and its list of waiters.
type progress struct {
	c        *Client
	t        turn
	who      WaiterInfo      // t.waiter()
	ctx      context.Context // the caller's
	start    time.Time
	attempts int
	wakeups  int
	granted  bool    // the last attempt was a grant heard of
	w        *waiter // listed while the acquisition waits
}

// attempt makes one attempt of the acquisition. (A grant is not an
// attempt: no script ran.)
func (p *progress) attempt(ctx context.Context) (outcome, error) {
	out, err := p.t.attempt(ctx)
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
	p.w = &waiter{info: p.who}
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
	if h := out.hold; h != nil {
		e.Lease, e.Watchdog, e.Count = h.terms()
		e.Reentry = e.Count > 1
	} else {
		e.Count = out.count
	}
	e.Granted = p.granted
	obs.ObserveLock(e)
}

// event is an event of the acquisition's, with what it has done so far.
func (p *progress) event(t EventType) Event {
	w := p.who
	e := Event{Type: t, Time: time.Now(), Name: w.Name, Kind: w.Kind, Mode: w.Mode, Owner: w.Owner, Context: p.ctx}
	e.Wait = e.Time.Sub(p.start)
	e.Attempts, e.Wakeups, e.Waited = p.attempts, p.wakeups, p.w != nil
	return e
}
