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

// durationCall is a method that takes a duration d, on a Client of a fresh
// miniredis, after whatever set-up it needs.
type durationCall struct {
	name  string
	setup func(t *testing.T, ctx context.Context, c *Client) func(ctx context.Context, d time.Duration) error
}

// noSetup is a set-up with nothing to set up.
func noSetup(call func(c *Client) func(ctx context.Context, d time.Duration) error) func(*testing.T, context.Context, *Client) func(context.Context, time.Duration) error {
	return func(_ *testing.T, _ context.Context, c *Client) func(context.Context, time.Duration) error {
		return call(c)
	}
}

// waitCalls are the methods with a wait parameter.
var waitCalls = []durationCall{
	{"Mutex.TryLock", noSetup(func(c *Client) func(context.Context, time.Duration) error {
		return func(ctx context.Context, d time.Duration) error {
			_, err := c.NewMutex("m").TryLock(ctx, d, 0)
			return err
		}
	})},
	{"FairMutex.TryLock", noSetup(func(c *Client) func(context.Context, time.Duration) error {
		return func(ctx context.Context, d time.Duration) error {
			_, err := c.NewFairMutex("m").TryLock(ctx, d, 0)
			return err
		}
	})},
	{"FencedMutex.TryLock", noSetup(func(c *Client) func(context.Context, time.Duration) error {
		return func(ctx context.Context, d time.Duration) error {
			_, _, err := c.NewFencedMutex("m").TryLock(ctx, d, 0)
			return err
		}
	})},
	{"FencedMember.TryLock", noSetup(func(c *Client) func(context.Context, time.Duration) error {
		return func(ctx context.Context, d time.Duration) error {
			_, err := c.NewFencedMutex("m").Member().TryLock(ctx, d, 0)
			return err
		}
	})},
	{"RWMutex.TryLock", noSetup(func(c *Client) func(context.Context, time.Duration) error {
		return func(ctx context.Context, d time.Duration) error {
			_, err := c.NewRWMutex("rw").TryLock(ctx, d, 0)
			return err
		}
	})},
	{"RWMutex.TryRLock", noSetup(func(c *Client) func(context.Context, time.Duration) error {
		return func(ctx context.Context, d time.Duration) error {
			_, err := c.NewRWMutex("rw").TryRLock(ctx, d, 0)
			return err
		}
	})},
	{"FairRWMutex.TryLock", noSetup(func(c *Client) func(context.Context, time.Duration) error {
		return func(ctx context.Context, d time.Duration) error {
			_, err := c.NewFairRWMutex("rw").TryLock(ctx, d, 0)
			return err
		}
	})},
	{"FairRWMutex.TryRLock", noSetup(func(c *Client) func(context.Context, time.Duration) error {
		return func(ctx context.Context, d time.Duration) error {
			_, err := c.NewFairRWMutex("rw").TryRLock(ctx, d, 0)
			return err
		}
	})},
	{"MultiLock.TryLock", noSetup(func(c *Client) func(context.Context, time.Duration) error {
		return func(ctx context.Context, d time.Duration) error {
			_, err := NewMultiLock(c.NewMutex("a"), c.NewMutex("b")).TryLock(ctx, d, 0)
			return err
		}
	})},
	{"Semaphore.TryAcquire", noSetup(func(c *Client) func(context.Context, time.Duration) error {
		return func(ctx context.Context, d time.Duration) error {
			_, err := c.NewSemaphore("s").TryAcquire(ctx, 1, d)
			return err
		}
	})},
	{"PermitExpirableSemaphore.TryAcquire", noSetup(func(c *Client) func(context.Context, time.Duration) error {
		return func(ctx context.Context, d time.Duration) error {
			_, err := c.NewPermitExpirableSemaphore("s").TryAcquire(ctx, d, 0)
			return err
		}
	})},
	{"CountDownLatch.AwaitTimeout", noSetup(func(c *Client) func(context.Context, time.Duration) error {
		return func(ctx context.Context, d time.Duration) error {
			_, err := c.NewCountDownLatch("l").AwaitTimeout(ctx, d)
			return err
		}
	})},
}

// leaseCalls are the methods with a lease parameter, and what a lease of 0
// means for each: "watchdog" (the watchdog keeps the lock), "error" (a
// fixed lease must be one), or "never" (the permit never expires).
var leaseCalls = []struct {
	durationCall
	zero string
}{
	{durationCall{"Mutex.TryLock", noSetup(func(c *Client) func(context.Context, time.Duration) error {
		return func(ctx context.Context, d time.Duration) error {
			_, err := c.NewMutex("m").TryLock(ctx, 0, d)
			return err
		}
	})}, "watchdog"},
	{durationCall{"Mutex.LockWithLease", noSetup(func(c *Client) func(context.Context, time.Duration) error {
		return func(ctx context.Context, d time.Duration) error { return c.NewMutex("m").LockWithLease(ctx, d) }
	})}, "error"},
	{durationCall{"Mutex.Extend", func(t *testing.T, ctx context.Context, c *Client) func(context.Context, time.Duration) error {
		m := c.NewMutex("m")
		if err := m.LockWithLease(ctx, time.Minute); err != nil {
			t.Fatal(err)
		}
		return m.Extend
	}}, "error"},
	{durationCall{"FairMutex.TryLock", noSetup(func(c *Client) func(context.Context, time.Duration) error {
		return func(ctx context.Context, d time.Duration) error {
			_, err := c.NewFairMutex("m").TryLock(ctx, 0, d)
			return err
		}
	})}, "watchdog"},
	{durationCall{"FairMutex.LockWithLease", noSetup(func(c *Client) func(context.Context, time.Duration) error {
		return func(ctx context.Context, d time.Duration) error { return c.NewFairMutex("m").LockWithLease(ctx, d) }
	})}, "error"},
	{durationCall{"FencedMutex.TryLock", noSetup(func(c *Client) func(context.Context, time.Duration) error {
		return func(ctx context.Context, d time.Duration) error {
			_, _, err := c.NewFencedMutex("m").TryLock(ctx, 0, d)
			return err
		}
	})}, "watchdog"},
	{durationCall{"FencedMutex.LockWithLease", noSetup(func(c *Client) func(context.Context, time.Duration) error {
		return func(ctx context.Context, d time.Duration) error {
			_, err := c.NewFencedMutex("m").LockWithLease(ctx, d)
			return err
		}
	})}, "error"},
	{durationCall{"FencedMember.TryLock", noSetup(func(c *Client) func(context.Context, time.Duration) error {
		return func(ctx context.Context, d time.Duration) error {
			_, err := c.NewFencedMutex("m").Member().TryLock(ctx, 0, d)
			return err
		}
	})}, "watchdog"},
	{durationCall{"RWMutex.TryLock", noSetup(func(c *Client) func(context.Context, time.Duration) error {
		return func(ctx context.Context, d time.Duration) error {
			_, err := c.NewRWMutex("rw").TryLock(ctx, 0, d)
			return err
		}
	})}, "watchdog"},
	{durationCall{"RWMutex.TryRLock", noSetup(func(c *Client) func(context.Context, time.Duration) error {
		return func(ctx context.Context, d time.Duration) error {
			_, err := c.NewRWMutex("rw").TryRLock(ctx, 0, d)
			return err
		}
	})}, "watchdog"},
	{durationCall{"RWMutex.LockWithLease", noSetup(func(c *Client) func(context.Context, time.Duration) error {
		return func(ctx context.Context, d time.Duration) error { return c.NewRWMutex("rw").LockWithLease(ctx, d) }
	})}, "error"},
	{durationCall{"RWMutex.RLockWithLease", noSetup(func(c *Client) func(context.Context, time.Duration) error {
		return func(ctx context.Context, d time.Duration) error { return c.NewRWMutex("rw").RLockWithLease(ctx, d) }
	})}, "error"},
	{durationCall{"RWMutex.RExtend", func(t *testing.T, ctx context.Context, c *Client) func(context.Context, time.Duration) error {
		rw := c.NewRWMutex("rw")
		if err := rw.RLockWithLease(ctx, time.Minute); err != nil {
			t.Fatal(err)
		}
		return rw.RExtend
	}}, "error"},
	{durationCall{"FairRWMutex.TryLock", noSetup(func(c *Client) func(context.Context, time.Duration) error {
		return func(ctx context.Context, d time.Duration) error {
			_, err := c.NewFairRWMutex("rw").TryLock(ctx, 0, d)
			return err
		}
	})}, "watchdog"},
	{durationCall{"FairRWMutex.RLockWithLease", noSetup(func(c *Client) func(context.Context, time.Duration) error {
		return func(ctx context.Context, d time.Duration) error { return c.NewFairRWMutex("rw").RLockWithLease(ctx, d) }
	})}, "error"},
	{durationCall{"MultiLock.TryLock", noSetup(func(c *Client) func(context.Context, time.Duration) error {
		return func(ctx context.Context, d time.Duration) error {
			_, err := NewMultiLock(c.NewMutex("a"), c.NewMutex("b")).TryLock(ctx, 0, d)
			return err
		}
	})}, "watchdog"},
	{durationCall{"MultiLock.LockWithLease", noSetup(func(c *Client) func(context.Context, time.Duration) error {
		return func(ctx context.Context, d time.Duration) error {
			return NewMultiLock(c.NewMutex("a"), c.NewMutex("b")).LockWithLease(ctx, d)
		}
	})}, "error"},
	{durationCall{"PermitExpirableSemaphore.Acquire", func(t *testing.T, ctx context.Context, c *Client) func(context.Context, time.Duration) error {
		s := c.NewPermitExpirableSemaphore("s")
		addPermits(t, ctx, s, 1)
		return func(ctx context.Context, d time.Duration) error { _, err := s.Acquire(ctx, d); return err }
	}}, "never"},
	{durationCall{"PermitExpirableSemaphore.TryAcquire", func(t *testing.T, ctx context.Context, c *Client) func(context.Context, time.Duration) error {
		s := c.NewPermitExpirableSemaphore("s")
		addPermits(t, ctx, s, 1)
		return func(ctx context.Context, d time.Duration) error { _, err := s.TryAcquire(ctx, 0, d); return err }
	}}, "never"},
	{durationCall{"PermitExpirableSemaphore.UpdateLeaseTime", func(t *testing.T, ctx context.Context, c *Client) func(context.Context, time.Duration) error {
		s, p := leasedPermit(t, ctx, c)
		return func(ctx context.Context, d time.Duration) error {
			_, err := s.UpdateLeaseTime(ctx, p.ID, d)
			return err
		}
	}}, "never"},
	{durationCall{"PermitExpirableSemaphore.Extend", func(t *testing.T, ctx context.Context, c *Client) func(context.Context, time.Duration) error {
		s, p := leasedPermit(t, ctx, c)
		return func(ctx context.Context, d time.Duration) error { _, err := s.Extend(ctx, p, d); return err }
	}}, "never"},
}

// addPermits gives s n permits.
func addPermits(t *testing.T, ctx context.Context, s *PermitExpirableSemaphore, n int) {
	t.Helper()
	if err := s.AddPermits(ctx, n); err != nil {
		t.Fatal(err)
	}
}

// leasedPermit returns a semaphore of c with one permit, leased for a
// minute.
func leasedPermit(t *testing.T, ctx context.Context, c *Client) (*PermitExpirableSemaphore, *Permit) {
	t.Helper()
	s := c.NewPermitExpirableSemaphore("s")
	addPermits(t, ctx, s, 1)
	p, err := s.Acquire(ctx, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	return s, p
}

// refusedBeforeRedis runs call with d on a fresh miniredis and checks that
// it fails with ErrInvalidDuration, its text containing want, without a
// command sent to Redis.
func refusedBeforeRedis(t *testing.T, dc durationCall, d time.Duration, want string) {
	t.Helper()
	mr, rdb := testkit.Miniredis(t)
	c := newClient(t, rdb)
	ctx := testkit.Ctx(t, 5*time.Second) // far more than a refusal takes
	call := dc.setup(t, ctx, c)
	before := mr.CommandCount()
	err := call(ctx, d)
	if !errors.Is(err, ErrInvalidDuration) || !strings.Contains(err.Error(), want) {
		t.Errorf("%s(%v) = %v, want ErrInvalidDuration saying %q", dc.name, d, err, want)
	}
	if n := mr.CommandCount() - before; n != 0 {
		t.Errorf("%s(%v) sent %d commands to Redis, want none", dc.name, d, n)
	}
}

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
// owner, the semaphores have no permits, and the latch has a count.
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
