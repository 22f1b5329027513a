package rlock

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/relock-go/relock/test/testkit"
)

// The methods and Options that take a duration, and the helpers of the
// tests of the rule for durations (durations_test.go).

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
	{"RateLimiter.TryWait", noSetup(func(c *Client) func(context.Context, time.Duration) error {
		return func(ctx context.Context, d time.Duration) error {
			_, err := c.NewRateLimiter("r").TryWait(ctx, 1, d)
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
