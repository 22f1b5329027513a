package rlock

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/relock-go/relock/scripts"
)

// setRate sets l's rate, failing the test if it cannot.
func setRate(t *testing.T, l *RateLimiter, r Rate) {
	t.Helper()
	if err := l.SetRate(context.Background(), r); err != nil {
		t.Fatalf("SetRate(%+v): %v", r, err)
	}
}

func TestRateLimiterGrantsTheLimitPerInterval(t *testing.T) {
	ctx := ctxT(t)
	c := newClient(t, newRedis(t))
	l := c.NewRateLimiter("rl:limit")
	r := Rate{Limit: 3, Interval: time.Minute}
	if ok, err := l.TrySetRate(ctx, r); !ok || err != nil {
		t.Fatalf("TrySetRate = %v, %v", ok, err)
	}
	if ok, err := l.TrySetRate(ctx, Rate{Limit: 9, Interval: time.Second}); ok || err != nil {
		t.Fatalf("second TrySetRate = %v, %v; want false", ok, err)
	}
	if got, err := l.Rate(ctx); got != r || err != nil {
		t.Fatalf("Rate = %+v, %v; want %+v", got, err, r)
	}
	if ok, err := l.AllowN(ctx, 2); !ok || err != nil {
		t.Fatalf("AllowN(2) = %v, %v", ok, err)
	}
	if ok, err := l.Allow(ctx); !ok || err != nil {
		t.Fatalf("Allow = %v, %v", ok, err)
	}
	if ok, err := l.Allow(ctx); ok || err != nil {
		t.Fatalf("Allow over the limit = %v, %v; want false", ok, err)
	}
	if ok, err := l.TryWait(ctx, 1, time.Second); ok || err != nil {
		t.Fatalf("TryWait(1s) with the next permit a minute away = %v, %v; want false", ok, err)
	}
	if n, err := l.Available(ctx); n != 0 || err != nil {
		t.Fatalf("Available = %d, %v; want 0", n, err)
	}
	if err := l.Release(ctx, 2); err != nil {
		t.Fatal(err)
	}
	if n, err := l.Available(ctx); n != 2 || err != nil {
		t.Fatalf("Available after Release(2) = %d, %v; want 2", n, err)
	}
	// Another Client shares the limit.
	other := newClient(t, srv.Client(t)).NewRateLimiter("rl:limit")
	if ok, err := other.AllowN(ctx, 2); !ok || err != nil {
		t.Fatalf("another Client's AllowN(2) = %v, %v", ok, err)
	}
	if ok, _ := l.Allow(ctx); ok {
		t.Fatal("Allow after the other Client took the rest = true")
	}
	setRate(t, l, Rate{Limit: 1, Interval: time.Minute})
	if ok, err := l.Allow(ctx); !ok || err != nil {
		t.Fatalf("Allow after SetRate reset the limiter = %v, %v", ok, err)
	}
	if ok, err := l.Delete(ctx); !ok || err != nil {
		t.Fatalf("Delete = %v, %v", ok, err)
	}
	if ok, err := l.Delete(ctx); ok || err != nil {
		t.Fatalf("second Delete = %v, %v; want false", ok, err)
	}
}

func TestRateLimiterErrors(t *testing.T) {
	ctx := ctxT(t)
	rdb := newRedis(t)
	c := newClient(t, rdb)
	l := c.NewRateLimiter("rl:errors")
	for what, err := range map[string]error{
		"Allow":     func() error { _, err := l.Allow(ctx); return err }(),
		"Wait":      l.Wait(ctx),
		"TryWait":   func() error { _, err := l.TryWait(ctx, 1, time.Second); return err }(),
		"Available": func() error { _, err := l.Available(ctx); return err }(),
		"Rate":      func() error { _, err := l.Rate(ctx); return err }(),
		"Release":   l.Release(ctx, 1),
	} {
		if !errors.Is(err, ErrNoRate) {
			t.Errorf("%s with no rate: %v; want ErrNoRate", what, err)
		}
	}
	wrong := []Rate{{Limit: 0, Interval: time.Second}, {Limit: -1, Interval: time.Second}}
	if over := int64(scripts.MaxRate) + 1; over <= math.MaxInt { // 64-bit platforms
		wrong = append(wrong, Rate{Limit: int(over), Interval: time.Second})
	}
	for _, r := range wrong {
		if err := l.SetRate(ctx, r); !errors.Is(err, ErrInvalidCount) {
			t.Errorf("SetRate(%+v): %v; want ErrInvalidCount", r, err)
		}
	}
	for _, r := range []Rate{{Limit: 1}, {Limit: 1, Interval: -time.Second}, {Limit: 1, Interval: time.Microsecond},
		{Limit: 1, Interval: time.Second, KeepAlive: -1}, {Limit: 1, Interval: time.Second, KeepAlive: time.Millisecond}} {
		if _, err := l.TrySetRate(ctx, r); !errors.Is(err, ErrInvalidDuration) {
			t.Errorf("TrySetRate(%+v): %v; want ErrInvalidDuration", r, err)
		}
	}
	setRate(t, l, Rate{Limit: 2, Interval: time.Second})
	for _, n := range []int{0, -1, 3} {
		if _, err := l.AllowN(ctx, n); !errors.Is(err, ErrInvalidCount) {
			t.Errorf("AllowN(%d) of a limit of 2: %v; want ErrInvalidCount", n, err)
		}
		if err := l.WaitN(ctx, n); !errors.Is(err, ErrInvalidCount) {
			t.Errorf("WaitN(%d) of a limit of 2: %v; want ErrInvalidCount", n, err)
		}
	}
	if err := l.Release(ctx, 0); !errors.Is(err, ErrInvalidCount) {
		t.Errorf("Release(0): %v; want ErrInvalidCount", err)
	}
	if _, err := l.TryWait(ctx, 1, -time.Second); !errors.Is(err, ErrInvalidDuration) {
		t.Errorf("TryWait(-1s): %v; want ErrInvalidDuration", err)
	}
	rdb.Set(ctx, "rl:string", "x", 0)
	rdb.HSet(ctx, "rl:lock", "c:1", 1)
	for name, says := range map[string]string{"rl:string": "it is a string, not a rate limiter's config", "rl:lock": "it is a hash that is not a rate limiter's config"} {
		w := c.NewRateLimiter(name)
		if _, err := w.Allow(ctx); !errors.Is(err, ErrWrongType) || !strings.Contains(err.Error(), says) {
			t.Errorf("Allow of %s: %v; want ErrWrongType saying %q", name, err, says)
		}
		if err := w.SetRate(ctx, Rate{Limit: 1, Interval: time.Second}); !errors.Is(err, ErrWrongType) {
			t.Errorf("SetRate of %s: %v; want ErrWrongType", name, err)
		}
		if _, err := w.Rate(ctx); !errors.Is(err, ErrWrongType) || !strings.Contains(err.Error(), says) {
			t.Errorf("Rate of %s: %v; want ErrWrongType saying %q", name, err, says)
		}
	}
	if _, err := c.NewRateLimiter("a{b").Allow(ctx); !errors.Is(err, ErrInvalidName) {
		t.Errorf("Allow of a{b: %v; want ErrInvalidName", err)
	}
}

// A waiter whose permits come back after its ctx's deadline returns at
// once with an error wrapping context.DeadlineExceeded, and lets the next
// waiter attempt.
func TestRateLimiterWaitPastTheDeadlineReturnsAtOnce(t *testing.T) {
	ctx := ctxT(t)
	c := newClient(t, newRedis(t))
	l := c.NewRateLimiter("rl:deadline")
	setRate(t, l, Rate{Limit: 1, Interval: time.Minute})
	l.Allow(ctx)
	short, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	start := time.Now()
	err := l.Wait(short)
	if !errors.Is(err, context.DeadlineExceeded) || short.Err() != nil {
		t.Fatalf("Wait = %v (ctx: %v); want an error wrapping DeadlineExceeded before ctx ends", err, short.Err())
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("Wait took %v", took)
	}
}

func TestRateLimiterCloseEndsItsWaiters(t *testing.T) {
	ctx := ctxT(t)
	c, err := New(newRedis(t))
	if err != nil {
		t.Fatal(err)
	}
	l := c.NewRateLimiter("rl:close")
	setRate(t, l, Rate{Limit: 1, Interval: time.Minute})
	l.Allow(ctx)
	done := make(chan error, 2)
	for range 2 {
		// No deadline: one before the permit's return would end the wait
		// at once.
		go func() { done <- l.Wait(context.Background()) }()
	}
	eventually(t, 5*time.Second, "two waiters", func() bool { return len(c.Activity().Waiters) == 2 })
	c.Close()
	for range 2 {
		if err := <-done; !errors.Is(err, ErrClosed) {
			t.Fatalf("Wait after Close: %v; want ErrClosed", err)
		}
	}
}

// Allow in a tight loop at 10 a second never gets more than 10 in a
// window of one second: a permit stamped in whole milliseconds comes back
// more than a second after the millisecond it was stamped in, so the
// eleventh grant's stamp is at least 1 001 ms after the first's.
func TestRateLimiterTightLoopKeepsEveryWindow(t *testing.T) {
	ctx := ctxT(t)
	c := newClient(t, newRedis(t))
	l := c.NewRateLimiter("rl:edge")
	var stamp time.Time
	l.now = func() time.Time { stamp = time.Now(); return stamp }
	const limit = 10
	setRate(t, l, Rate{Limit: limit, Interval: time.Second})
	var grants []int64
	for end := time.Now().Add(2500 * time.Millisecond); time.Now().Before(end); {
		ok, err := l.Allow(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			grants = append(grants, stamp.UnixMilli())
		}
	}
	if len(grants) < 2*limit+1 {
		t.Fatalf("%d grants in 2.5 s at %d a second", len(grants), limit)
	}
	for i := range grants[limit:] {
		if d := grants[i+limit] - grants[i]; d < 1001 {
			t.Fatalf("grants %d and %d stamped %d ms apart: %d in a window of one second", i, i+limit, d, limit+1)
		}
	}
}
