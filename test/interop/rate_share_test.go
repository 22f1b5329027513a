package interop

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/relock-go/relock/rlock"
	"github.com/relock-go/relock/test/testkit"
)

// rateShare is a run of Go and Java on one limiter.
type rateShare struct {
	limit      int
	interval   time.Duration
	goes, java side
}

// busiest is the most grants of both sides whose permits were surely
// stamped within one window of the interval: each grant's permits were
// stamped between its call's start and return, and the scripts' stamps
// are whole milliseconds, so the window is the interval less 2 ms. A call
// that took long only makes its grant count in fewer windows.
func (s rateShare) busiest() int {
	all := append(slices.Clone(s.goes.grants), s.java.grants...)
	slices.SortFunc(all, func(a, b permitCall) int { return cmp.Compare(a.from, b.from) })
	width := float64(s.interval.Milliseconds() - 2)
	most := 0
	for i, first := range all {
		n := 0
		for _, g := range all[i:] {
			if g.from >= first.from+width {
				break
			}
			if g.to < first.from+width {
				n++
			}
		}
		most = max(most, n)
	}
	return most
}

// share is Go's part of the grants.
func (s rateShare) share() float64 {
	return float64(len(s.goes.grants)) / float64(len(s.goes.grants)+len(s.java.grants))
}

// demand is Go's part of the calls.
func (s rateShare) demand() float64 {
	return float64(s.goes.tries) / float64(s.goes.tries+s.java.tries)
}

func (s rateShare) String() string {
	return fmt.Sprintf("%d grants: Go %d of %d calls, Java %d of %d (Go's share %.2f of the grants, %.2f of the calls); at most %d in a window of %v, the limit %d; Java's timer tick %d ms",
		len(s.goes.grants)+len(s.java.grants), len(s.goes.grants), s.goes.tries, len(s.java.grants), s.java.tries,
		s.share(), s.demand(), s.busiest(), s.interval, s.limit, s.java.tick)
}

// runShare runs Go's goroutines and Java's threads on one limiter of
// limit per interval for 5 s, both sides starting together: each
// goroutine calls take (of the limiter) then sleeps goPace, each thread
// takes a permit as how says, then sleeps javaPace (RateWorker's run).
func runShare(t *testing.T, name string, limit int, interval time.Duration,
	goroutines int, goPace time.Duration, take func(*rlock.RateLimiter) func(context.Context) (bool, error),
	threads int, how string, javaPace time.Duration) rateShare {
	t.Helper()
	rdb, c := setup(t)
	ctx := testkit.Ctx(t, 2*time.Minute)
	l := c.NewRateLimiter(name)
	if err := l.SetRate(ctx, rlock.Rate{Limit: limit, Interval: interval}); err != nil {
		t.Fatal(err)
	}
	const d = 5 * time.Second
	java := StartRateWorker(t, rdb.Options().Addr)
	java.Send(t, "run", "--name", name, "--threads", strconv.Itoa(threads), "--duration", strconv.FormatInt(d.Milliseconds(), 10),
		"--how", how, "--pace", strconv.FormatInt(javaPace.Milliseconds(), 10))
	s := rateShare{limit: limit, interval: interval}
	s.goes = goSide(ctx, t, goroutines, goPace, d, take(l))
	s.java = javaSide(t, java)
	return s
}

// allow is the limiter's Allow.
func allow(l *rlock.RateLimiter) func(context.Context) (bool, error) { return l.Allow }

// wait is the limiter's Wait, as a take that is always granted.
func wait(l *rlock.RateLimiter) func(context.Context) (bool, error) {
	return func(ctx context.Context) (bool, error) { return true, l.Wait(ctx) }
}

// A Go goroutine and two Java threads ask one limiter of 50 a second for
// a permit, without waiting (Allow, tryAcquire), every 20 ms each:
// together about three times its rate. In every window of one second no
// more than 50 are granted, both sides together, and the permits come
// back (checkShare). Each side's share of the grants follows its share of
// the calls: at least half of it. (Java's share is less than its calls':
// Redisson stamps an acquisition as the call begins, so its script sees
// a permit come back later than a Go call reaching Redis at the same
// moment, by the time the call takes to get there.)
func TestRateLimiterSharedWithJavaByDemand(t *testing.T) {
	t.Parallel()
	s := runShare(t, "rate:allow", 50, time.Second, 1, 20*time.Millisecond, allow, 2, "try", 20*time.Millisecond)
	t.Log(s)
	checkShare(t, s)
	if goes, java := s.share(), 1-s.share(); goes < s.demand()/2 || java < (1-s.demand())/2 {
		t.Errorf("shares of the grants: Go %.2f, Java %.2f, of the calls %.2f and %.2f: want at least half each: %v", goes, java, s.demand(), 1-s.demand(), s)
	}
}

// Go's goroutines wait for permits (Wait) while Java's threads do
// (acquire), without pause, for 5 s: the limit holds, and the permits
// come back (checkShare). Go's waiters attempt when the permits come
// back; Redisson's at their timer wheel's next tick after that (10 to
// 49 ms apart with Redisson's defaults; the run reports it): so Go's take
// nearly all (docs/rate-limiter.md).
func TestRateLimiterWaitersSharedWithJava(t *testing.T) {
	t.Parallel()
	s := runShare(t, "rate:wait", 50, time.Second, 2, 0, wait, 2, "acquire", 0)
	t.Log(s)
	checkShare(t, s)
}

// checkShare fails the test unless s granted no more than its limit in
// any window of its interval (busiest), and half the limit over its 5 s
// at least: the permits come back, to both sides. (On a quiet machine a
// run grants 96% to 100% of it; a stalled side, which takes the permits
// that came back late, takes them back later: the limiter keeps the
// window, not the throughput.)
func checkShare(t *testing.T, s rateShare) {
	t.Helper()
	if most := s.busiest(); most > s.limit {
		t.Errorf("%d grants within a window of %v, over the limit %d: %v", most, s.interval, s.limit, s)
	}
	if n, least := len(s.goes.grants)+len(s.java.grants), int(0.5*float64(s.limit)*float64(5*time.Second)/float64(s.interval)); n < least {
		t.Errorf("%d grants in 5 s, want at least %d: %v", n, least, s)
	}
}
