//go:build go1.25

package rlock

import (
	"context"
	"net"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"
)

// skewRun has two Clients of mr's server ask one limiter of limit per
// second for a permit every 5 ms for 1.5 s of the bubble's clock, the first
// Client's clock off by skew, and returns the most permits granted in any
// window of one second of the true (the bubble's) clock, and each
// Client's grants.
func skewRun(t *testing.T, mr *miniredis.Miniredis, rdb *redis.Client, limit int, skew time.Duration) (most int, grants [2]int) {
	t.Helper()
	other := redis.NewClient(&redis.Options{
		Addr:   "127.0.0.1:6379",
		Dialer: func(context.Context, string, string) (net.Conn, error) { return mr.Dial() },
	})
	defer other.Close()
	var at []time.Duration
	var mu sync.Mutex
	start := time.Now()
	var wg sync.WaitGroup
	for i, r := range []*redis.Client{rdb, other} {
		c, _ := New(r)
		defer c.Close()
		l := c.NewRateLimiter("rl:skew")
		if i == 0 {
			l.now = func() time.Time { return time.Now().Add(skew) }
			setRate(t, l, Rate{Limit: limit, Interval: time.Second})
		}
		wg.Go(func() {
			for time.Since(start) < 1500*time.Millisecond {
				if ok, _ := l.Allow(context.Background()); ok {
					mu.Lock()
					at = append(at, time.Since(start))
					grants[i]++
					mu.Unlock()
				}
				time.Sleep(5 * time.Millisecond)
			}
		})
	}
	wg.Wait()
	slices.Sort(at)
	for i, a := range at {
		n, _ := slices.BinarySearch(at, a+time.Second)
		most = max(most, n-i)
	}
	return most, grants
}

// Two Clients share a limiter of 20 a second, one with its clock off. A
// Client whose clock runs ahead sees the other's permits come back early
// and takes them first; so a window of one second holds the limit plus
// the permits the other took in the skew's length (here one every 5 ms).
// The scripts keep a stamp within 1% of the interval (10 ms) of Redis's
// TIME, so a clock an hour off does no more than one 10 ms off: without
// that bound, every permit the other took would come back to it at once.
func TestClockRateLimiterSkewIsBounded(t *testing.T) {
	const limit = 20
	type outcome struct {
		most   int
		grants [2]int
	}
	runs := map[time.Duration]outcome{}
	for _, skew := range []time.Duration{0, 10 * time.Millisecond, time.Hour, -10 * time.Millisecond, -time.Hour} {
		inBubble(t, func(t *testing.T, mr *miniredis.Miniredis, rdb *redis.Client) {
			most, grants := skewRun(t, mr, rdb, limit, skew)
			t.Logf("skew %v: at most %d in a second; grants %v", skew, most, grants)
			runs[skew] = outcome{most, grants}
		})
	}
	if got := runs[0].most; got != limit {
		t.Errorf("no skew: at most %d in a second, want %d", got, limit)
	}
	for bound, far := range map[time.Duration]time.Duration{10 * time.Millisecond: time.Hour, -10 * time.Millisecond: -time.Hour} {
		if got := runs[bound].most; got > limit+3 {
			t.Errorf("skew %v: at most %d in a second, want at most %d: the limit and what the other took in 10 ms", bound, got, limit+3)
		}
		if runs[far] != runs[bound] {
			t.Errorf("skew %v: %+v; want as at %v, the bound: %+v", far, runs[far], bound, runs[bound])
		}
	}
}
