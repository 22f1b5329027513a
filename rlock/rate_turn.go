package rlock

import (
	"cmp"
	"context"
	"fmt"
	"time"
)

// rateTurn is the turn of an acquisition of a rate limiter's permits, in
// the one wait loop. The acquisitions of one limiter in one Client that
// may wait take turns in the limiter's line (countLines), in arrival
// order: only the one holding its slot attempts. Nothing announces that
// permits came back, so the turn listens on no channel: a failed
// attempt's script says how long until enough permits come back, counted
// from the attempt's stamp, and the turn sleeps exactly until then, then
// attempts again. When that is after the acquisition's wait, it gives up
// at once; after ctx's deadline, it ends with an error wrapping
// context.DeadlineExceeded. Either way it leaves the slot to the next
// acquisition, which attempts at once.
type rateTurn struct {
	l        *RateLimiter
	n        int
	single   bool       // one attempt: no wait, none to be told of
	deadline time.Time  // the wait's; zero: none
	line     *countLine // the limiter's line, once joined
	inLine   bool       // holds its slot
	due      time.Time  // when the last failed attempt's permits come back
	waited   bool       // slept after a failed attempt
}

func (t *rateTurn) waiter() WaiterInfo {
	return WaiterInfo{Name: t.l.name, Kind: KindRateLimiter, Permits: t.n}
}

// enter takes the slot of the limiter's line if it is free and nobody
// waits for it; else the acquisition queues behind the Client's earlier
// ones, and its first sleep waits for the slot. A single attempt (Allow)
// takes no slot, so that concurrent ones go to Redis together, but gives
// up while others of the Client wait: they were first.
func (t *rateTurn) enter(ctx context.Context, deadline time.Time, single bool) (time.Duration, bool, error) {
	t.deadline, t.single = deadline, single
	if single {
		ls := &t.l.c.countLines
		ls.mu.Lock()
		defer ls.mu.Unlock()
		if ls.m[t.l.line] != nil {
			return 0, false, errWaitElapsed // a line is kept while it has users
		}
		return 0, false, nil
	}
	t.line = t.l.c.countLines.join(t.l.line, t.l.c.ctx.Done())
	if t.inLine, _, _ = t.line.enter(ctx, false, 0); t.inLine {
		return 0, false, nil
	}
	return untilTurn, true, nil
}

func (t *rateTurn) attempt(ctx context.Context) (outcome, error) {
	now := t.l.now()
	ok, wait, err := t.l.s.Acquire(context.WithoutCancel(ctx), t.l.c.rdb, int64(t.n), now, !t.single)
	t.due = now.Add(wait)
	return outcome{ok: ok && err == nil, ttl: wait}, rateError(err)
}

func (t *rateTurn) listened() bool { return t.waited }

// listen starts the waits after a failed attempt: none when its permits
// come back too late.
func (t *rateTurn) listen(ctx context.Context, out outcome) (time.Duration, bool, error) {
	if err := t.late(ctx); err != nil {
		return 0, false, elapsed(err)
	}
	t.waited = true
	return t.pause(out), true, nil
}

// pause is the time until the last failed attempt's permits come back.
func (t *rateTurn) pause(outcome) time.Duration { return max(time.Until(t.due), 0) }

// sleep waits for the slot of the limiter's line while the acquisition
// is queued in it, then until its permits come back, or ctx ends.
func (t *rateTurn) sleep(ctx context.Context, d time.Duration) (bool, error) {
	if !t.inLine {
		ok, _, err := t.line.enter(ctx, false, waitUntil(t.deadline))
		if !ok {
			return false, cmp.Or(err, errWaitElapsed)
		}
		t.inLine = true
		return false, nil
	}
	if err := t.late(ctx); err != nil {
		return false, err
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return false, nil
	case <-ctx.Done():
		return false, ctx.Err()
	case <-t.l.c.ctx.Done():
		return false, ErrClosed
	}
}

// late returns errWaitElapsed when the permits come back after the
// wait's deadline, an error wrapping context.DeadlineExceeded after
// ctx's: waiting is in vain.
func (t *rateTurn) late(ctx context.Context) error {
	if !t.deadline.IsZero() && t.due.After(t.deadline) {
		return errWaitElapsed
	}
	if d, ok := ctx.Deadline(); ok && t.due.After(d) {
		return fmt.Errorf("the permits come back in %v, after ctx's deadline: %w", time.Until(t.due).Round(time.Millisecond), context.DeadlineExceeded)
	}
	return nil
}

func (t *rateTurn) acquired(e Event) Event {
	e.Count = t.n
	return e
}

// done leaves the limiter's line, where the next acquisition of the
// Client attempts at once.
func (t *rateTurn) done(context.Context, bool) {
	if t.inLine {
		t.line.leave(false)
	}
	if t.line != nil {
		t.l.c.countLines.leave(t.l.line, t.line)
	}
}
