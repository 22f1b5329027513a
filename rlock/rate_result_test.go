package rlock

import (
	"errors"
	"testing"
	"time"
)

// Try says what an Allow does not: the permits left, and when refused,
// how long until enough come back (RetryAfter -1 when granted, as
// redis_rate's).
func TestRateLimiterTrySaysWhatIsLeftAndWhenToRetry(t *testing.T) {
	ctx := ctxT(t)
	c := newClient(t, newRedis(t))
	l := c.NewRateLimiter("rl:try")
	setRate(t, l, Rate{Limit: 3, Interval: time.Minute})
	if r, err := l.Try(ctx, 2); r != (RateResult{Allowed: 2, Remaining: 1, RetryAfter: -1}) || err != nil {
		t.Fatalf("Try(2) of 3 = %+v, %v", r, err)
	}
	r, err := l.Try(ctx, 2)
	if err != nil || r.Allowed != 0 || r.Remaining != 1 || r.RetryAfter < 59*time.Second || r.RetryAfter > time.Minute+time.Millisecond {
		t.Fatalf("Try(2) with 1 left = %+v, %v; want nothing taken, 1 left, a retry in about a minute", r, err)
	}
	if _, err := l.Try(ctx, 0); !errors.Is(err, ErrInvalidCount) {
		t.Fatalf("Try(0): %v; want ErrInvalidCount", err)
	}
	if _, err := c.NewRateLimiter("rl:none").Try(ctx, 1); !errors.Is(err, ErrNoRate) {
		t.Fatalf("Try on no rate: %v; want ErrNoRate", err)
	}
}
