package rlock

import (
	"context"
	"math"
	"sync"
	"time"
)

// rateTurn is the turn of an acquisition of a rate limiter's permits, in
// the one wait loop. The acquisitions of one limiter in one Client that
// may wait take turns in the limiter's line (countLines), in arrival
// order: only the one holding its slot attempts. Nothing announces that
// permits came back, so a failed attempt's script says how long until
// enough come back, counted from the attempt's stamp, and the turn waits
// until then (waitFor) on the limiter's channel, where relock's changes
// (a rate set, permits released, the limiter deleted) wake it at once.
// When the permits come back after the acquisition's deadline, or ctx's,
// the wait loop ends the acquisition at once (see wait.until), and the
// next acquisition of the Client attempts.
type rateTurn struct {
	listening
	l        *RateLimiter
	n        int
	single   bool          // one attempt: no slot, no wait
	tell     bool          // a single attempt asks when the permits come back
	line     *countLine    // the limiter's line, once joined
	slot     slot          // of the limiter's line
	due      time.Time     // when the last failed attempt's permits come back
	interval time.Duration // the limiter's, as the last attempt read it
	left     int           // the permits available after the last attempt
	// deadline is the acquisition's (zero: none), by its ctx's: the lag
	// after the permits come back never takes an attempt past them.
	deadline, by time.Time
}

func (t *rateTurn) waiter() WaiterInfo {
	return WaiterInfo{Name: t.l.name, Kind: KindRateLimiter, Permits: t.n}
}

// enter takes the slot of the limiter's line if it is free and nobody
// waits for it; else the acquisition waits for it, behind the Client's
// earlier ones; then it may lag (rateShares.entryLag). A single attempt
// (Allow) takes no slot, so that concurrent ones go to Redis together.
func (t *rateTurn) enter(single bool) wait {
	t.single = single
	if single {
		return wait{}
	}
	t.line = countLinesOf.in(t.l.c).join(t.l.line, t.l.c.ctx.Done())
	rateNeedsOf.in(t.l.c).add(t.line, t.n)
	t.slot = slot{line: &t.line.line}
	lag := rateSharesOf.in(t.l.c).entryLag(t.l.name, t.l.now())
	if !t.slot.try() {
		return wait{slot: &t.slot, sleep: lag}
	}
	return wait{sleep: lag}
}

// attempt asks for the permits. A single attempt made while goroutines
// of this Client wait for the limiter leaves them the permits they wait
// for: it takes its own only beside theirs.
func (t *rateTurn) attempt(ctx context.Context) (outcome, error) {
	reserve := 0
	if t.single && countLinesOf.in(t.l.c).used(t.l.line) {
		line := countLinesOf.in(t.l.c).join(t.l.line, t.l.c.ctx.Done())
		reserve = rateNeedsOf.in(t.l.c).of(line)
		countLinesOf.in(t.l.c).leave(t.l.line, line)
	}
	now := t.l.now()
	a, err := t.l.s.Acquire(context.WithoutCancel(ctx), t.l.c.sender, int64(t.n), int64(reserve), now, !t.single || t.tell)
	if err == nil {
		rateSharesOf.in(t.l.c).attempted(t.l.name, now, t.n, a)
	}
	t.left = int(min(a.Left, math.MaxInt))
	t.due, t.interval = now.Add(a.Wait), a.Interval
	t.by, _ = ctx.Deadline()
	return outcome{ok: a.OK && err == nil, ttl: a.Wait, count: t.n}, rateError(err)
}

// next waits until the failed attempt's permits come back, counted from
// the moment it was stamped, and the Client's lag after that (see
// rateShares), or until a change of the limiter is announced (a Client
// that hears nothing, WithSpin, sleeps until then). The lag never takes
// the attempt past the acquisition's deadline, or ctx's, that the
// permits come back by.
func (t *rateTurn) next(outcome) wait {
	until := t.due.Add(rateSharesOf.in(t.l.c).lag(t.l.name, t.interval, t.l.now()))
	for _, by := range []time.Time{t.deadline, t.by} {
		if !by.IsZero() && until.After(by) && !t.due.After(by) {
			until = by
		}
	}
	if !t.c.hears() {
		return wait{until: until}
	}
	return wait{listen: &t.listening, until: until}
}

// done leaves the limiter's line, where the next acquisition of the
// Client attempts at once, and stops listening.
func (t *rateTurn) done(context.Context, bool) {
	if t.s != nil {
		t.s.close()
	}
	t.slot.leave()
	if t.line != nil {
		rateNeedsOf.in(t.l.c).add(t.line, -t.n)
		countLinesOf.in(t.l.c).leave(t.l.line, t.line)
	}
}

// rateNeedsOf are, in each Client, the permits the waiters in each of its
// rate limiters' lines wait for, by line, for the single attempts that
// must leave them (see attempt). A line's entry goes when its waiters are
// done.
var rateNeedsOf = newKindState(func(*Client) *rateWaits { return &rateWaits{m: map[*countLine]int{}} })

// rateWaits are permits waited for, by line.
type rateWaits struct {
	mu sync.Mutex
	m  map[*countLine]int
}

// add adds n (negative: takes away) to the permits waited for in line.
func (w *rateWaits) add(line *countLine, n int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.m[line] += n; w.m[line] == 0 {
		delete(w.m, line)
	}
}

// of is the permits waited for in line.
func (w *rateWaits) of(line *countLine) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.m[line]
}
