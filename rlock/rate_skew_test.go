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
// second for a permit every 5 ms for 1.5 s of the bubble's clock, each
// Client's clock off the bubble's (and miniredis's) by its skew, and returns the most permits granted in any
// window of one second of the true (the bubble's) clock, and each
// Client's grants.
func skewRun(t *testing.T, mr *miniredis.Miniredis, rdb *redis.Client, limit int, skews [2]time.Duration) (most int, grants [2]int) {
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
		l.now = func() time.Time { return time.Now().Add(skews[i]) }
		if i == 0 {
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

// Two Clients share a limiter of 20 a second. Stamps are the callers'
// clocks as they are (Redisson's rule): Clients whose clocks agree hold
// the limit whatever Redis's clock says, an hour off or 100 ms; a Client
// whose clock runs 10 ms ahead of the other's sees the other's permits
// come back early, so a window of one second holds the limit plus the
// permits the other took in 10 ms (here one every 5 ms).
func TestClockRateLimiterSkew(t *testing.T) {
	const limit = 20
	runs := map[[2]time.Duration]int{}
	agree := [][2]time.Duration{{0, 0}, {time.Hour, time.Hour}, {-100 * time.Millisecond, -100 * time.Millisecond}}
	apart := [][2]time.Duration{{10 * time.Millisecond, 0}, {0, 10 * time.Millisecond}}
	for _, skews := range append(agree, apart...) {
		inBubble(t, func(t *testing.T, mr *miniredis.Miniredis, rdb *redis.Client) {
			most, grants := skewRun(t, mr, rdb, limit, skews)
			t.Logf("clocks off by %v: at most %d in a second; grants %v", skews, most, grants)
			runs[skews] = most
		})
	}
	for _, skews := range agree {
		if got := runs[skews]; got != limit {
			t.Errorf("clocks both off Redis's by %v: at most %d in a second, want %d", skews[0], got, limit)
		}
	}
	for _, skews := range apart {
		if got := runs[skews]; got > limit+3 {
			t.Errorf("clocks %v apart: at most %d in a second, want at most %d: the limit and what the other took in 10 ms", skews, got, limit+3)
		}
	}
}
