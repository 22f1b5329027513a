package main

import (
	"context"
	"errors"
	"time"

	"github.com/relock-go/relock/test/proof/history"
	"github.com/relock-go/relock/test/proof/store"
)

// openPoll is how often a part of a latch round looks whether the round
// has begun.
const openPoll = 20 * time.Millisecond

// latch takes a part in a round of the latch workload (store's rounds),
// every operation recorded with the round as its token: the count set
// ("write", value the count), a count-down ("release"), a wait for zero
// ("acquire": ok when the count reached zero, fail when the wait ended
// first).
func (l *loop) latch(ctx context.Context) bool {
	octx, cancel := opCtx()
	defer cancel()
	t, err := l.w.store.Ticket(octx, l.object)
	if err != nil {
		return false
	}
	round, part := (t-1)/store.LatchRound, (t-1)%store.LatchRound
	latch := l.locks.NewCountDownLatch(store.LatchName(l.object, round))
	switch {
	case part == 0:
		o := l.invoke("write", history.Event{Value: store.LatchCount, Token: round})
		set, err := latch.TrySetCount(octx, store.LatchCount)
		switch {
		case err != nil:
			done(o, history.Info, history.Event{Error: err.Error()})
			return false
		case !set:
			done(o, history.Fail, history.Event{Error: "the latch had a count"})
			return false
		}
		done(o, history.OK, history.Event{})
		if l.w.store.Open(octx, l.object, round) != nil {
			return false
		}
	case !l.awaitOpen(ctx, round):
		return false
	case part <= store.LatchCount:
		o := l.invoke("release", history.Event{Token: round})
		released(o, latch.CountDown(octx))
		return true
	}
	o := l.invoke("acquire", history.Event{Token: round})
	zero, err := latch.AwaitTimeout(ctx, l.w.c.wait)
	if err == nil && !zero {
		err = context.DeadlineExceeded
	}
	return acquired(o, err, history.Event{})
}

// awaitOpen waits, at most the acquisitions' wait, until the loop's round
// has begun, and reports whether it has.
func (l *loop) awaitOpen(ctx context.Context, round int64) bool {
	wctx, cancel := context.WithTimeout(ctx, l.w.c.wait)
	defer cancel()
	for {
		open, err := l.w.store.IsOpen(wctx, l.object, round)
		if open || err != nil && !errors.Is(err, context.DeadlineExceeded) {
			return open
		}
		l.pause(wctx, openPoll)
		if wctx.Err() != nil {
			return false
		}
	}
}
