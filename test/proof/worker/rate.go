package main

import (
	"context"

	"github.com/relock-go/relock/rlock"
	"github.com/relock-go/relock/test/proof/history"
	"github.com/relock-go/relock/test/proof/store"
)

// rateWaitShare is the share of the rate workload's acquisitions that
// wait (TryWait, up to an interval); the others take what is there now
// (AllowN).
const rateWaitShare = 1.0 / 3

// rate returns the rate workload's iteration on limiter rl: the first sets
// its rate (store.RateLimit per store.RateInterval, once, by anyone), each
// takes one or two permits, recorded as an acquire whose value is the
// permits: ok when granted, fail when not (and the loop backs off).
func (l *loop) rate(rl *rlock.RateLimiter) func(context.Context) bool {
	set := false
	return func(ctx context.Context) bool {
		if !set {
			octx, cancel := opCtx()
			_, err := rl.TrySetRate(octx, rlock.Rate{Limit: store.RateLimit, Interval: store.RateInterval})
			cancel()
			if err != nil {
				return false
			}
			set = true
		}
		n := 1 + l.rng.IntN(2)
		o := l.invoke("acquire", history.Event{Value: int64(n)})
		var ok bool
		var err error
		if l.rng.Float64() < rateWaitShare {
			ok, err = rl.TryWait(ctx, n, store.RateInterval)
		} else {
			ok, err = rl.AllowN(ctx, n)
		}
		if err == nil && !ok {
			// The loop backs off, as a caller turned away would.
			done(o, history.Fail, history.Event{Error: "no permits"})
			return false
		}
		return acquired(o, err, history.Event{})
	}
}
