package rlock

import (
	"context"
	"time"
)

// acquireFunc is a handle's acquisition: see Mutex.TryLock for its results.
// A negative wait has no limit; lease 0 lets the watchdog keep the lock.
type acquireFunc func(ctx context.Context, wait, lease time.Duration) (bool, error)

// lockForever acquires with no wait limit and the watchdog, for Lock.
func lockForever(ctx context.Context, name string, acquire acquireFunc) error {
	_, err := acquire(ctx, -1, 0)
	return opError("lock", name, err)
}

// lockWithLease acquires with no wait limit and a fixed lease.
func lockWithLease(ctx context.Context, name string, lease time.Duration, acquire acquireFunc) error {
	if err := checkLease("lease", lease); err != nil {
		return opError("lock", name, err)
	}
	_, err := acquire(ctx, -1, lease)
	return opError("lock", name, err)
}

// tryLock checks TryLock's durations, then acquires.
func tryLock(ctx context.Context, name string, wait, lease time.Duration, acquire acquireFunc) (bool, error) {
	if wait < 0 {
		return false, opError("try lock", name, invalidDuration("wait", wait, "is negative"))
	}
	if lease != 0 {
		if err := checkLease("lease", lease); err != nil {
			return false, opError("try lock", name, err)
		}
	}
	ok, err := acquire(ctx, wait, lease)
	return ok, opError("try lock", name, err)
}

// checkLease rejects a duration that Redis cannot hold as an expiry: one
// below a millisecond. Longer ones are rounded up to whole milliseconds.
func checkLease(what string, d time.Duration) error {
	if d < time.Millisecond {
		return invalidDuration(what, d, "is below 1ms, the resolution of Redis expiries")
	}
	return nil
}

// persist makes a release request that the caller asked for even when its
// ctx has ended: req runs with ctx, and if ctx had ended before or ends
// while it runs, once more detached from ctx, bounded by the Client's
// unlock timeout. req must be safe to repeat (a latched release is).
func persist[T any](c *Client, ctx context.Context, req func(context.Context) (T, error)) (T, error) {
	if ctx.Err() == nil {
		v, err := req(ctx)
		if err == nil || ctx.Err() == nil {
			return v, err
		}
	}
	dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), c.opts.unlockTimeout)
	defer cancel()
	return req(dctx)
}
