package rlock

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/scripts"
	"github.com/relock-go/relock/test/testkit"
)

// The rule for durations (docs/semantics.md, "Durations"): a negative wait
// or lease is refused by every method and Option that takes one, with an
// error wrapping ErrInvalidDuration whose text says "is negative", before
// anything is sent to Redis; a positive lease or timeout below a
// millisecond is refused as "below 1ms"; a zero wait is one attempt, and a
// zero lease means what each kind's docs say.

func TestDurationNegativeWaitIsRefused(t *testing.T) {
	for _, dc := range waitCalls {
		t.Run(dc.name, func(t *testing.T) {
			for _, d := range []time.Duration{-time.Nanosecond, -time.Second} {
				refusedBeforeRedis(t, dc, d, "wait "+d.String()+" is negative")
			}
		})
	}
}

func TestDurationNegativeOrSubMillisecondLeaseIsRefused(t *testing.T) {
	for _, lc := range leaseCalls {
		t.Run(lc.name, func(t *testing.T) {
			refusedBeforeRedis(t, lc.durationCall, -time.Second, "lease -1s is negative")
			refusedBeforeRedis(t, lc.durationCall, -time.Nanosecond, "lease -1ns is negative")
			refusedBeforeRedis(t, lc.durationCall, 500*time.Microsecond, "lease 500µs is below 1ms")
		})
	}
}

// TestDurationZeroLease: a lease of 0 is the watchdog's for an acquisition
// that may have one, an error where a fixed lease is asked for, and no
// expiry for a permit.
func TestDurationZeroLease(t *testing.T) {
	for _, lc := range leaseCalls {
		t.Run(lc.name, func(t *testing.T) {
			mr, rdb := testkit.Miniredis(t)
			c := newClient(t, rdb, WithWatchdogTimeout(time.Minute))
			ctx := ctxT(t)
			call := lc.setup(t, ctx, c)
			err := call(ctx, 0)
			switch lc.zero {
			case "error":
				if !errors.Is(err, ErrInvalidDuration) || !strings.Contains(err.Error(), "lease 0s") {
					t.Fatalf("%s(0) = %v, want ErrInvalidDuration naming the lease 0s", lc.name, err)
				}
			case "watchdog":
				if err != nil {
					t.Fatal(err)
				}
				holds := c.Activity().Holds
				if len(holds) == 0 {
					t.Fatalf("%s(0): no hold", lc.name)
				}
				for _, h := range holds {
					if !h.Watchdog {
						t.Fatalf("%s(0): hold %+v, want one the watchdog keeps", lc.name, h)
					}
				}
			case "never":
				if err != nil {
					t.Fatal(err)
				}
				mr.FastForward(time.Hour)
				leases, err := rdb.ZRangeWithScores(ctx, "{s}:timeout", 0, -1).Result()
				if err != nil || len(leases) != 1 || int64(leases[0].Score) != scripts.NoExpiry {
					t.Fatalf("%s(0): leases %v (%v), want one that never expires", lc.name, leases, err)
				}
			}
		})
	}
}

// TestDurationZeroWaitIsOneAttempt: a wait of 0 makes one attempt, and
// reports false without an error when it fails.
func TestDurationZeroWaitIsOneAttempt(t *testing.T) {
	for _, dc := range waitCalls {
		t.Run(dc.name, func(t *testing.T) {
			_, rdb := testkit.Miniredis(t)
			c := newClient(t, rdb)
			ctx := ctxT(t)
			occupy(t, ctx, c)
			call := dc.setup(t, ctx, c)
			if err := call(ctx, 0); err != nil {
				t.Fatalf("%s(0) = %v, want a failed attempt and no error", dc.name, err)
			}
		})
	}
}

// occupy makes every wait of waitCalls fail: the locks are held by another
// owner, the semaphores have no permits, the latch has a count, and the
// rate limiter's permit is taken for a minute.
func occupy(t *testing.T, ctx context.Context, c *Client) {
	t.Helper()
	for _, name := range []string{"m", "a"} {
		if err := c.NewMutex(name).Lock(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.NewRWMutex("rw").Lock(ctx); err != nil {
		t.Fatal(err)
	}
	if ok, err := c.NewCountDownLatch("l").TrySetCount(ctx, 1); !ok || err != nil {
		t.Fatalf("TrySetCount = %v, %v", ok, err)
	}
	r := c.NewRateLimiter("r")
	if err := r.SetRate(ctx, Rate{Limit: 1, Interval: time.Minute}); err != nil {
		t.Fatal(err)
	}
	if ok, err := r.Allow(ctx); !ok || err != nil {
		t.Fatalf("Allow = %v, %v", ok, err)
	}
}

// TestDurationNoWaitParameterWaitsForCtx: the methods without a wait
// parameter wait until ctx ends, and are not refused as a negative wait.
func TestDurationNoWaitParameterWaitsForCtx(t *testing.T) {
	_, rdb := testkit.Miniredis(t)
	c := newClient(t, rdb)
	ctx := ctxT(t)
	occupy(t, ctx, c)
	calls := map[string]func(ctx context.Context) error{
		"Semaphore.Acquire": func(ctx context.Context) error { return c.NewSemaphore("s").Acquire(ctx, 1) },
		"PermitExpirableSemaphore.Acquire": func(ctx context.Context) error {
			_, err := c.NewPermitExpirableSemaphore("s").Acquire(ctx, 0)
			return err
		},
		"CountDownLatch.Await": c.NewCountDownLatch("l").Await,
		"Mutex.Lock":           c.NewMutex("m").Lock,
		"RateLimiter.Wait":     c.NewRateLimiter("r").Wait,
	}
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
			defer cancel()
			if err := call(short); !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("%s = %v, want ctx's end", name, err)
			}
		})
	}
}

// TestDurationOptionsRefuseNegatives: every Option that takes a duration
// refuses a negative one, naming itself.
func TestDurationOptionsRefuseNegatives(t *testing.T) {
	opts := map[string]func(time.Duration) Option{
		"WithWatchdogTimeout": WithWatchdogTimeout,
		"WithHealthCheck":     WithHealthCheck,
		"WithFairWaitTimeout": WithFairWaitTimeout,
		"WithUnlockTimeout":   WithUnlockTimeout,
		"WithReplicaAck":      func(d time.Duration) Option { return WithReplicaAck(1, d) },
		"WithSpin":            func(d time.Duration) Option { return WithSpin(ConstantBackoff(d)) },
		"WithSpin(ExponentialBackoff)": func(d time.Duration) Option {
			return WithSpin(ExponentialBackoff(time.Millisecond, d))
		},
	}
	rdb := redis.NewClient(&redis.Options{Addr: miniredis.RunT(t).Addr()})
	defer rdb.Close()
	for name, opt := range opts {
		t.Run(name, func(t *testing.T) {
			_, err := New(rdb, opt(-time.Second))
			option, _, _ := strings.Cut(name, "(")
			if !errors.Is(err, ErrInvalidDuration) || !strings.Contains(err.Error(), option) || !strings.Contains(err.Error(), "-1s is negative") {
				t.Fatalf("New(%s(-1s)) = %v, want ErrInvalidDuration naming %s, saying -1s is negative", name, err, name)
			}
		})
	}
}
