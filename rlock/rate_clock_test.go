//go:build go1.25

package rlock

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"
)

// These tests run in a synctest bubble (clock_test.go's inBubble), where
// the Client's clock, miniredis's TIME and its TTLs are one fake clock:
// every wait is exact but for the lag a waiter draws after the permits
// come back (rateShares: below minSpread while no other client takes
// permits). A permit stamped t comes back at t + the interval + 1 ms (a
// stamp is a whole millisecond, rate_common.lua): so a second and a
// millisecond, at a limit a second.

// lagged reports whether took is want and the lags of at most waits
// waits after permits came back.
func lagged(took, want time.Duration, waits int) bool {
	return took >= want && took < want+time.Duration(waits)*minSpread
}

// exactClient is a Client of rdb whose rate limiters' waiters lag no
// probe (rateShares.exact): the tests time their waits exactly, but for
// the lags within the least spread.
func exactClient(rdb *redis.Client) *Client {
	c, _ := New(rdb)
	rateSharesOf.in(c).exact = true
	return c
}

// attemptCounter counts the acquisition scripts of rate limiters a
// go-redis client sends (EVALSHA or EVAL of five keys and four
// arguments), and the most in flight at once.
type attemptCounter struct {
	sent, inFlight, most atomic.Int64
}

// back is how long a permit of a limiter a second takes to come back.
const back = time.Second + time.Millisecond

func (a *attemptCounter) DialHook(next redis.DialHook) redis.DialHook { return next }

func (a *attemptCounter) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

func (a *attemptCounter) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		args := cmd.Args()
		if name := cmd.Name(); (name != "evalsha" && name != "eval") || len(args) != 15 {
			return next(ctx, cmd)
		}
		a.sent.Add(1)
		n := a.inFlight.Add(1)
		for m := a.most.Load(); n > m && !a.most.CompareAndSwap(m, n); m = a.most.Load() {
		}
		defer a.inFlight.Add(-1)
		return next(ctx, cmd)
	}
}

// A waiter sleeps exactly until the script says its permits come back,
// then takes them: two attempts, no polling.
func TestClockRateLimiterWaitSleepsUntilThePermitsComeBack(t *testing.T) {
	inBubble(t, func(t *testing.T, mr *miniredis.Miniredis, rdb *redis.Client) {
		ctx := context.Background()
		var count attemptCounter
		rdb.AddHook(&count)
		c := exactClient(rdb)
		defer c.Close()
		l := c.NewRateLimiter("rl")
		setRate(t, l, Rate{Limit: 2, Interval: time.Second})
		start := time.Now()
		l.AllowN(ctx, 2)
		time.Sleep(300 * time.Millisecond)
		count.sent.Store(0)
		if err := l.Wait(ctx); err != nil {
			t.Fatal(err)
		}
		if took := time.Since(start); !lagged(took, back, 1) {
			t.Fatalf("Wait returned %v after the permits were taken, want %v and a lag", took, back)
		}
		if n := count.sent.Load(); n != 2 {
			t.Fatalf("Wait sent %d attempts, want 2: one refused, one when the permits came back", n)
		}
		// WaitN waits for as many as it needs: both come back a second
		// after the first was taken.
		time.Sleep(500 * time.Millisecond)
		l.Allow(ctx)
		mid := time.Now()
		if err := l.WaitN(ctx, 2); err != nil {
			t.Fatal(err)
		}
		if took := time.Since(mid); !lagged(took, back, 1) {
			t.Fatalf("WaitN(2) took %v, want %v and a lag, until the second permit's return", took, back)
		}
	})
}

// A burst of a thousand waiters of one Client sends one attempt at a
// time: the attempts are the grants plus one refused attempt per
// interval (the head's, before the permits come back), not one per
// waiter per return.
func TestClockRateLimiterBurstAttemptsOneAtATime(t *testing.T) {
	inBubble(t, func(t *testing.T, mr *miniredis.Miniredis, rdb *redis.Client) {
		const limit, waiters = 100, 1000
		l, count := burstLimiter(t, rdb, limit)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		start := time.Now()
		var wg sync.WaitGroup
		for range waiters {
			wg.Go(func() {
				if err := l.Wait(ctx); err != nil && ctx.Err() == nil {
					t.Error(err)
				}
			})
		}
		synctest.Wait()
		// Until the first permits come back, one attempt was made: the
		// head's, refused.
		if sent, n := count.sent.Load(), len(l.c.Activity().Waiters); sent != 1 || n != waiters {
			cancel()
			wg.Wait()
			t.Fatalf("%d attempts before the first permit came back, %d waiters listed; want 1, %d", sent, n, waiters)
		}
		wg.Wait()
		if took := time.Since(start); !lagged(took, waiters/limit*back, waiters/limit) {
			t.Fatalf("%d waiters took %v at %d a second", waiters, took, limit)
		}
		if most := count.most.Load(); most != 1 {
			t.Fatalf("%d attempts in flight at once, want 1", most)
		}
		if sent := count.sent.Load(); sent != waiters+waiters/limit {
			t.Fatalf("%d attempts for %d grants, want %d", sent, waiters, waiters+waiters/limit)
		}
	})
}

// The waiters of one Client are granted in arrival order.
func TestClockRateLimiterWaitersInArrivalOrder(t *testing.T) {
	inBubble(t, func(t *testing.T, mr *miniredis.Miniredis, rdb *redis.Client) {
		const limit, waiters = 20, 100
		l, _ := burstLimiter(t, rdb, limit)
		start := time.Now()
		granted := make([]time.Duration, waiters) // when, by arrival
		var wg sync.WaitGroup
		for i := range waiters {
			wg.Go(func() {
				if err := l.Wait(context.Background()); err != nil {
					t.Error(err)
				}
				granted[i] = time.Since(start)
			})
			synctest.Wait() // queued before the next one comes
		}
		wg.Wait()
		// The fake clock moves only when every goroutine waits: the k-th
		// twenty to arrive are granted at the k-th second (and the lags
		// so far), when the permits of the twenty before come back.
		for i, at := range granted {
			if want := time.Duration(i/limit+1) * back; !lagged(at, want, i/limit+1) || i > 0 && at < granted[i-1] {
				t.Fatalf("waiter %d granted at %v, want %v and the lags: in arrival order, %d a second", i, at, want, limit)
			}
		}
	})
}

// burstLimiter is a limiter of limit a second on a Client of rdb, closed
// with the test, its permits all taken, and the counter of the attempts
// sent from then on.
func burstLimiter(t *testing.T, rdb *redis.Client, limit int) (*RateLimiter, *attemptCounter) {
	t.Helper()
	count := &attemptCounter{}
	rdb.AddHook(count)
	c := exactClient(rdb)
	t.Cleanup(func() { c.Close() })
	l := c.NewRateLimiter("rl")
	setRate(t, l, Rate{Limit: limit, Interval: time.Second})
	l.AllowN(context.Background(), limit)
	count.sent.Store(0)
	return l, count
}

// A TryWait whose permits come back after its wait gives up at once, and
// an Allow while others of its Client wait takes nothing they wait for.
func TestClockRateLimiterGivesUpAtOnce(t *testing.T) {
	inBubble(t, func(t *testing.T, mr *miniredis.Miniredis, rdb *redis.Client) {
		ctx := context.Background()
		l, count := burstLimiter(t, rdb, 1)
		start := time.Now()
		if ok, err := l.TryWait(ctx, 1, 900*time.Millisecond); ok || err != nil {
			t.Fatalf("TryWait(900ms) = %v, %v; want false", ok, err)
		}
		if took := time.Since(start); took != 0 {
			t.Fatalf("TryWait gave up after %v, want at once", took)
		}
		done := make(chan error)
		go func() { done <- l.Wait(ctx) }()
		synctest.Wait()
		count.sent.Store(0)
		if ok, err := l.Allow(ctx); ok || err != nil || count.sent.Load() != 1 {
			t.Fatalf("Allow while a Wait waits = %v, %v, %d attempts; want false, one: the permit is the Wait's", ok, err, count.sent.Load())
		}
		// The Wait takes the permit back at 1s; the next one is at 2s.
		if ok, err := l.TryWait(ctx, 1, 1500*time.Millisecond); ok || err != nil || !lagged(time.Since(start), back, 1) {
			t.Fatalf("TryWait(1.5s) behind the Wait = %v, %v after %v; want false once the Wait was granted, at %v and a lag", ok, err, time.Since(start), back)
		}
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if ok, err := l.TryWait(ctx, 1, 1500*time.Millisecond); !ok || err != nil || !lagged(time.Since(start), 2*back, 2) {
			t.Fatalf("TryWait(1.5s) = %v, %v after %v; want true at %v and two lags", ok, err, time.Since(start), 2*back)
		}
	})
}

// Deleting a limiter ends its waiters with ErrNoRate at once; its
// KeepAlive deletes it when idle.
func TestClockRateLimiterDeletedUnderItsWaiters(t *testing.T) {
	inBubble(t, func(t *testing.T, mr *miniredis.Miniredis, rdb *redis.Client) {
		ctx := context.Background()
		c := exactClient(rdb)
		defer c.Close()
		l := c.NewRateLimiter("rl")
		setRate(t, l, Rate{Limit: 1, Interval: time.Second, KeepAlive: time.Minute})
		l.Allow(ctx)
		done := make(chan error)
		go func() { done <- l.Wait(ctx) }()
		synctest.Wait()
		start := time.Now()
		l.Delete(ctx)
		if err := <-done; !errors.Is(err, ErrNoRate) || time.Since(start) != 0 {
			t.Fatalf("Wait on a deleted limiter: %v after %v; want ErrNoRate at once", err, time.Since(start))
		}
		setRate(t, l, Rate{Limit: 1, Interval: time.Second, KeepAlive: time.Minute})
		time.Sleep(59 * time.Second)
		if ok, err := l.Allow(ctx); !ok || err != nil {
			t.Fatalf("Allow within the keep-alive = %v, %v", ok, err)
		}
		time.Sleep(time.Minute)
		if _, err := l.Allow(ctx); !errors.Is(err, ErrNoRate) {
			t.Fatalf("Allow a keep-alive after the last acquisition: %v; want ErrNoRate", err)
		}
	})
}

// SetRate and Release wake the waiters at once, those of the Client that
// made the change and those of another: they attempt when the change is
// announced, not when the old rate's permits come back.
func TestClockRateLimiterChangesWakeTheWaiters(t *testing.T) {
	inBubble(t, func(t *testing.T, mr *miniredis.Miniredis, rdb *redis.Client) {
		ctx := context.Background()
		c := exactClient(rdb)
		defer c.Close()
		other := exactClient(rdb)
		defer other.Close()
		l, o := c.NewRateLimiter("rl"), other.NewRateLimiter("rl")
		setRate(t, l, Rate{Limit: 2, Interval: 5 * time.Second})
		l.AllowN(ctx, 2)
		start := time.Now()
		done := make(chan time.Duration, 4)
		for _, w := range []*RateLimiter{l, l, o, o} {
			go func() {
				if err := w.Wait(ctx); err != nil {
					t.Error(err)
				}
				done <- time.Since(start)
			}()
		}
		synctest.Wait()
		time.Sleep(time.Second)
		if err := l.Release(ctx, 1); err != nil {
			t.Fatal(err)
		}
		if at := <-done; at != time.Second {
			t.Fatalf("a waiter granted the permit released at 1s at %v", at)
		}
		time.Sleep(time.Second)
		setRate(t, o, Rate{Limit: 100, Interval: time.Second})
		for range 3 {
			if at := <-done; at != 2*time.Second {
				t.Fatalf("a waiter granted at %v, want at 2s, when the rate went up to 100 a second", at)
			}
		}
	})
}

// An Allow while a waiter of its Client waits asks Redis, but takes only
// permits beside those the waiter waits for: it never delays it.
func TestClockRateLimiterAllowLeavesTheWaitersPermits(t *testing.T) {
	inBubble(t, func(t *testing.T, mr *miniredis.Miniredis, rdb *redis.Client) {
		ctx := context.Background()
		c := exactClient(rdb)
		defer c.Close()
		l := c.NewRateLimiter("rl")
		setRate(t, l, Rate{Limit: 3, Interval: time.Second})
		start := time.Now()
		l.Allow(ctx)
		time.Sleep(100 * time.Millisecond)
		l.Allow(ctx)
		done := make(chan time.Duration)
		go func() {
			if err := l.WaitN(ctx, 2); err != nil {
				t.Error(err)
			}
			done <- time.Since(start)
		}()
		synctest.Wait()
		if ok, err := l.Allow(ctx); ok || err != nil {
			t.Fatalf("Allow of the last permit while WaitN(2) waits = %v, %v; want false", ok, err)
		}
		if at := <-done; !lagged(at, back, 1) {
			t.Fatalf("WaitN(2) granted at %v, want %v and a lag, when the first permit came back", at, back)
		}
		time.Sleep(100 * time.Millisecond) // the second permit comes back
		if ok, err := l.Allow(ctx); !ok || err != nil {
			t.Fatalf("Allow once the waiter is done = %v, %v; want true", ok, err)
		}
	})
}
