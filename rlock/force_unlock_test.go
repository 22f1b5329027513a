package rlock

import (
	"context"
	"errors"
	"testing"
	"time"
)

// ForceUnlock of a fair lock hands it to the waiting owner at once, and
// reports whether there was a lock; it leaves keys that are not locks
// alone.
func TestForceUnlockFairMutexWakesWaiter(t *testing.T) {
	c, rdb := fairClient(t)
	ctx := ctxT(t)
	const name = "force:fair"
	holder, waiters, got := queueFair(t, ctx, c, rdb, name, 1)
	forced := time.Now()
	if ok, err := c.ForceUnlock(ctx, name); !ok || err != nil {
		t.Fatalf("ForceUnlock = %v, %v; want true", ok, err)
	}
	if d := awaitLock(t, got[0], 2*time.Second).Sub(forced); d > time.Second {
		t.Errorf("waiter took the lock %v after ForceUnlock", d)
	}
	if n, err := waiters[0].HoldCount(ctx); n != 1 || err != nil {
		t.Errorf("waiter's HoldCount = %d, %v; want 1", n, err)
	}
	if err := holder.Unlock(ctx); !errors.Is(err, ErrNotHeld) {
		t.Errorf("Unlock after ForceUnlock = %v, want ErrNotHeld", err)
	}
	mustUnlock(t, waiters[0])
	if ok, err := c.ForceUnlock(ctx, name); ok || err != nil {
		t.Errorf("ForceUnlock of a free lock = %v, %v; want false, nil", ok, err)
	}

	if err := rdb.Set(ctx, "force:string", "v", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if ok, err := c.ForceUnlock(ctx, "force:string"); ok || !errors.Is(err, ErrWrongType) {
		t.Errorf("ForceUnlock of a string = %v, %v; want ErrWrongType", ok, err)
	}
	if rdb.Exists(ctx, "force:string").Val() != 1 {
		t.Error("ForceUnlock deleted a key that is not a lock")
	}
	if _, err := c.ForceUnlock(ctx, ""); !errors.Is(err, ErrInvalidName) {
		t.Errorf("ForceUnlock(\"\") = %v, want ErrInvalidName", err)
	}
}

// ForceUnlock deletes a held lock of every kind through its own kind's
// release: each then shows as free.
func TestForceUnlockEveryKind(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	c := newClient(t, rdb)
	locks := map[string]func(context.Context) error{
		"force:mutex":   c.NewMutex("force:mutex").Lock,
		"force:fenced":  func(ctx context.Context) error { _, err := c.NewFencedMutex("force:fenced").Lock(ctx); return err },
		"force:rw":      c.NewRWMutex("force:rw").RLock,
		"force:written": c.NewRWMutex("force:written").Lock,
		"force:fair-rw": c.NewFairRWMutex("force:fair-rw").Lock,
	}
	for name, lock := range locks {
		if err := lock(ctx); err != nil {
			t.Fatal(err)
		}
		if ok, err := c.ForceUnlock(ctx, name); !ok || err != nil {
			t.Errorf("ForceUnlock(%q) = %v, %v; want true", name, ok, err)
		}
		if info := mustInspect(t, c, name); info.Held {
			t.Errorf("%q still held after ForceUnlock: %+v", name, info)
		}
	}
}
