package rlock

import (
	"context"
	"time"
)

// rateTurn is the turn of an acquisition of a rate limiter's permits, in
// the one wait loop. The acquisitions of one limiter in one Client that
// may wait take turns in the limiter's line (countLines), in arrival
// order: only the one holding its slot attempts. Nothing announces that
// permits came back, so the turn listens on no channel: a failed
// attempt's script says how long until enough permits come back, counted
// from the attempt's stamp, and the turn waits exactly until then. When
// that is after the acquisition's deadline, or ctx's, the wait loop ends
// the acquisition at once (see wait.until), and the next acquisition of
// the Client attempts.
type rateTurn struct {
	l      *RateLimiter
	n      int
	single bool       // one attempt: no slot, no wait
	line   *countLine // the limiter's line, once joined
	slot   slot       // of the limiter's line
	due    time.Time  // when the last failed attempt's permits come back
}

func (t *rateTurn) waiter() WaiterInfo {
	return WaiterInfo{Name: t.l.name, Kind: KindRateLimiter, Permits: t.n}
}

// enter takes the slot of the limiter's line if it is free and nobody
// waits for it; else the acquisition waits for it, behind the Client's
// earlier ones. A single attempt (Allow) takes no slot, so that
// concurrent ones go to Redis together.
func (t *rateTurn) enter(single bool) wait {
	t.single = single
	if single {
		return wait{}
	}
	t.line = countLinesOf.in(t.l.c).join(t.l.line, t.l.c.ctx.Done())
	t.slot = slot{line: &t.line.line}
	if !t.slot.try() {
		return wait{slot: &t.slot}
	}
	return wait{}
}

// attempt asks for the permits. A single attempt made while goroutines
// of this Client wait for the limiter fails without asking Redis: they
// were first.
func (t *rateTurn) attempt(ctx context.Context) (outcome, error) {
	if t.single && countLinesOf.in(t.l.c).used(t.l.line) {
		return outcome{}, nil
	}
	now := t.l.now()
	ok, wait, err := t.l.s.Acquire(context.WithoutCancel(ctx), t.l.c.sender, int64(t.n), now, !t.single)
	t.due = now.Add(wait)
	return outcome{ok: ok && err == nil, ttl: wait, count: t.n}, rateError(err)
}

// next waits until the failed attempt's permits come back, counted from
// the moment it was stamped.
func (t *rateTurn) next(outcome) wait { return wait{until: t.due} }

// done leaves the limiter's line, where the next acquisition of the
// Client attempts at once.
func (t *rateTurn) done(context.Context, bool) {
	t.slot.leave()
	if t.line != nil {
		countLinesOf.in(t.l.c).leave(t.l.line, t.line)
	}
}
