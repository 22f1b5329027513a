package interop

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/relock-go/relock/rlock"
	"github.com/relock-go/relock/test/testkit"
)

// The clock rule beside Redisson (docs/rate-limiter.md, The clock): a
// permit is stamped with its caller's clock and comes back an interval
// later by the next caller's, Go's or Java's. Both sides read this host's
// clock: the limit's permits one side took come back to the other no
// sooner than an interval after the call that took them began (Redisson's
// at the interval, relock's 1 ms after, in whole milliseconds), and then
// all of them.
func TestRateLimiterClockRuleWithJava(t *testing.T) {
	t.Parallel()
	const limit, interval = 10, time.Second
	interval0 := float64(interval.Milliseconds())
	t.Run("Go first", func(t *testing.T) {
		t.Parallel()
		ctx, l, java := clockLimiter(t, "rate:clock:go", limit, interval)
		from := time.Now()
		if ok, err := l.AllowN(ctx, limit); !ok || err != nil {
			t.Fatalf("AllowN(%d) = %v, %v", limit, ok, err)
		}
		// Java asks every millisecond until 900 ms past the interval.
		wait := time.Until(from.Add(interval + 900*time.Millisecond))
		java.Send(t, "run", "--name", "rate:clock:go", "--threads", "1", "--how", "try", "--pace", "1",
			"--duration", strconv.FormatInt(wait.Milliseconds(), 10))
		grants := javaSide(t, java).grants
		if len(grants) != limit {
			t.Fatalf("Java granted %d permits in the %v after Go's took all %d, want them all back", len(grants), wait, limit)
		}
		early := grants[0].to - Millis(from)
		t.Logf("Java's first grant returned %.1f ms after Go's call began", early)
		if early <= interval0-1 {
			t.Fatalf("Java granted a permit %.1f ms after Go's call that took them all began: within the %v interval", early, interval)
		}
	})
	t.Run("Java first", func(t *testing.T) {
		t.Parallel()
		ctx, l, java := clockLimiter(t, "rate:clock:java", limit, interval)
		java.Send(t, "run", "--name", "rate:clock:java", "--threads", "1", "--how", "try", "--permits", strconv.Itoa(limit),
			"--tries", "1", "--duration", "60000")
		took := javaSide(t, java).grants
		if len(took) != 1 {
			t.Fatalf("Java's tryAcquire(%d) on a fresh limiter: %d grants, want 1", limit, len(took))
		}
		// Go asks every millisecond until 900 ms past the interval.
		end := took[0].from + interval0 + 900
		s := goSide(ctx, t, 1, time.Millisecond, time.Duration((end-Millis(time.Now()))*float64(time.Millisecond)), l.Allow)
		if len(s.grants) != limit {
			t.Fatalf("Go granted %d permits in the 1.9 s after Java's took all %d, want them all back", len(s.grants), limit)
		}
		early := s.grants[0].to - took[0].from
		t.Logf("Go's first grant returned %.1f ms after Java's call began", early)
		if early <= interval0 {
			t.Fatalf("Go granted a permit %.1f ms after Java's call that took them all began: within the %v interval and its millisecond", early, interval)
		}
	})
}

// clockLimiter is a limiter of limit per interval on a server of its own,
// the test's ctx, and a RateWorker on the same server.
func clockLimiter(t *testing.T, name string, limit int, interval time.Duration) (context.Context, *rlock.RateLimiter, *Peer) {
	t.Helper()
	rdb, c := setup(t)
	ctx := testkit.Ctx(t, 2*time.Minute)
	l := c.NewRateLimiter(name)
	if err := l.SetRate(ctx, rlock.Rate{Limit: limit, Interval: interval}); err != nil {
		t.Fatal(err)
	}
	return ctx, l, StartRateWorker(t, rdb.Options().Addr)
}
