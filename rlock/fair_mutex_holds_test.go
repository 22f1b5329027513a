package rlock

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestFairMutexLeaseExpiryHandsOffToHead lets a fixed lease run out without
// Unlock, as when its holder dies: nothing announces an expiry, yet the
// head waiter gets the lock within about the lease, not after a heartbeat.
func TestFairMutexLeaseExpiryHandsOffToHead(t *testing.T) {
	dead, rdb := fairClient(t)
	c, _ := fairClient(t)
	ctx := context.Background()
	const name, lease = "fair-expiry", 300 * time.Millisecond
	if err := dead.NewFairMutex(name).LockWithLease(ctx, lease); err != nil {
		t.Fatal(err)
	}
	taken := time.Now()
	w := c.NewFairMutex(name)
	got := lockAsync(ctx, w)
	d := awaitLock(t, got, 3*time.Second).Sub(taken)
	if d < lease-50*time.Millisecond || d > lease+300*time.Millisecond {
		t.Errorf("head got the lock %v after a %v lease was taken", d, lease)
	}
	mustUnlock(t, w)
	assertNoFairKeys(t, rdb, name)
}

// TestFairMutexReentry re-enters a fair lock, even while others wait (the
// holder is not a newcomer), and releases it as many times.
func TestFairMutexReentry(t *testing.T) {
	const name = "fair-reentry"
	c, rdb, ctx, f := heldFair(t, name)
	ws, gots := queueFairWaiters(t, c, rdb, name, 1)
	w, got := ws[0], gots[0]
	for range 2 {
		if err := f.Reenter(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if ok, err := f.TryLock(ctx, 0, 0); ok || err != nil {
		t.Fatalf("TryLock of the held handle: %v %v, want false", ok, err)
	}
	if n, err := f.HoldCount(ctx); n != 3 || err != nil {
		t.Fatalf("HoldCount %d %v, want 3", n, err)
	}
	if held, err := f.IsHeld(ctx); !held || err != nil {
		t.Fatalf("IsHeld %v %v", held, err)
	}
	if held, err := w.IsHeld(ctx); held || err != nil {
		t.Fatalf("waiter IsHeld %v %v", held, err)
	}
	for range 3 {
		mustUnlock(t, f)
	}
	if err := f.Unlock(ctx); !errors.Is(err, ErrNotHeld) {
		t.Fatalf("extra Unlock: %v, want ErrNotHeld", err)
	}
	awaitLock(t, got, 2*time.Second)
	if ttl, err := w.TTL(ctx); ttl <= 0 || err != nil {
		t.Fatalf("TTL %v %v", ttl, err)
	}
	mustUnlock(t, w)
	assertNoFairKeys(t, rdb, name)
}

// TestFairMutexForceUnlockWakesHead deletes a held lock as an operator: the
// head waiter is woken at once and the queue keeps its order.
func TestFairMutexForceUnlockWakesHead(t *testing.T) {
	const name = "fair-force"
	c, rdb, ctx, holder := heldFair(t, name)
	ws, gots := queueFairWaiters(t, c, rdb, name, 1)
	w, got := ws[0], gots[0]
	forced := time.Now()
	if ok, err := c.NewFairMutex(name).ForceUnlock(ctx); !ok || err != nil {
		t.Fatalf("ForceUnlock %v %v", ok, err)
	}
	if d := awaitLock(t, got, 2*time.Second).Sub(forced); d > time.Second {
		t.Errorf("head woken %v after ForceUnlock", d)
	}
	if err := holder.Unlock(ctx); !errors.Is(err, ErrNotHeld) {
		t.Errorf("Unlock after ForceUnlock: %v, want ErrNotHeld", err)
	}
	mustUnlock(t, w)
	assertNoFairKeys(t, rdb, name)
}

// TestFairMutexSharedByGoroutines has two goroutines share one waiting
// FairMutex: one waits in the line, the other at the handle; one of them
// giving up leaves the other waiting; when its turn comes it takes the
// lock, and a later Lock of the handle waits for its Unlock; nothing is
// left behind.
func TestFairMutexSharedByGoroutines(t *testing.T) {
	const name = "fair-shared"
	c, rdb, ctx, holder := heldFair(t, name)
	shared := c.NewFairMutex(name)
	quitCtx, quit := context.WithCancel(ctx)
	quitter := lockAsync(quitCtx, shared)
	stayer := lockAsync(ctx, shared)
	awaitQueue(t, rdb, name, shared.Owner())
	quit()
	select {
	case r := <-quitter:
		if !errors.Is(r.err, context.Canceled) {
			t.Fatalf("cancelled Lock: %v", r.err)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("cancelled Lock did not return")
	}
	awaitQueue(t, rdb, name, shared.Owner())
	mustUnlock(t, holder)
	awaitLock(t, stayer, 2*time.Second)

	if ok, err := shared.TryLock(ctx, 0, 0); ok || err != nil {
		t.Fatalf("TryLock of the held handle = %v, %v; want false", ok, err)
	}
	second := lockAsync(ctx, shared)
	mustUnlock(t, shared)
	awaitLock(t, second, 2*time.Second)
	if n, err := shared.HoldCount(ctx); n != 1 || err != nil {
		t.Fatalf("HoldCount %d %v, want 1", n, err)
	}
	mustUnlock(t, shared)
	assertNoFairKeys(t, rdb, name)
}
