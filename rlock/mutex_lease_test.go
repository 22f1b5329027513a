package rlock

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/relock-go/relock/test/testkit"
)

func TestFixedLeaseExpires(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	c := newClient(t, rdb)
	m := c.NewMutex("lease")
	const lease = 200 * time.Millisecond
	if err := m.LockWithLease(ctx, lease); err != nil {
		t.Fatal(err)
	}
	if ttl, _ := m.TTL(ctx); ttl <= 0 || ttl > lease {
		t.Fatalf("TTL = %v, want in (0, %v]", ttl, lease)
	}
	lost := m.Lost()
	// Expiry publishes nothing: the other owner wakes after the lock's TTL.
	other := newClient(t, rdb).NewMutex("lease")
	start := time.Now()
	ok, err := other.TryLock(ctx, 5*time.Second, time.Second)
	if !ok || err != nil {
		t.Fatalf("TryLock after expiry = %v, %v", ok, err)
	}
	if waited := time.Since(start); waited > 2*time.Second {
		t.Fatalf("acquired %v after a %v lease expired, want about the lease", waited, lease)
	}
	select {
	case <-lost:
	case <-time.After(time.Second):
		t.Fatal("Lost not closed after the lease ran out")
	}
	if err := m.Unlock(ctx); !errors.Is(err, ErrNotHeld) {
		t.Fatalf("Unlock after expiry = %v, want ErrNotHeld", err)
	}
}

func TestPartialUnlockRearmsLease(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	m := newClient(t, rdb).NewMutex("rearm")
	const lease = 2 * time.Second
	if err := m.LockWithLease(ctx, lease); err != nil {
		t.Fatal(err)
	}
	if err := m.Reenter(ctx); err != nil {
		t.Fatal(err)
	}
	// Shorten the TTL behind the library's back; a partial unlock must put
	// the hold's lease back.
	rdb.PExpire(ctx, "rearm", 100*time.Millisecond)
	if err := m.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	if ttl, _ := m.TTL(ctx); ttl < lease-500*time.Millisecond {
		t.Fatalf("TTL after partial unlock = %v, want about %v", ttl, lease)
	}
}

func TestWatchdogKeepsLockUntilClose(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	// Renewals every third of a lease: a loaded machine may delay one by
	// a few hundred milliseconds, never by two thirds of a second.
	const lease = time.Second
	c := newClient(t, rdb, WithWatchdogTimeout(lease))
	m := c.NewMutex("dog")
	if err := m.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	other := newClient(t, rdb).NewMutex("dog")
	// Time is the subject: the lock must outlive several leases.
	ok, err := other.TryLock(ctx, 2*lease, time.Second)
	if ok || err != nil {
		t.Fatalf("lock taken over after %v despite the watchdog: %v, %v", 2*lease, ok, err)
	}
	select {
	case <-m.Lost():
		t.Fatal("Lost closed while the watchdog renewed the lock")
	default:
	}
	if n, _ := m.HoldCount(ctx); n != 1 {
		t.Fatalf("HoldCount = %d after renewals, want 1", n)
	}

	lost := m.Lost()
	closed := time.Now()
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-lost:
	default:
		t.Fatal("Close did not close Lost")
	}
	// Close does not unlock: the lock expires within one lease.
	if ok, err := other.TryLock(ctx, 0, time.Second); ok || err != nil {
		t.Fatalf("TryLock just after Close = %v, %v; want false: Close unlocked the lock", ok, err)
	}
	ok, err = other.TryLock(ctx, 5*time.Second, time.Second)
	if !ok || err != nil {
		t.Fatalf("TryLock after Close = %v, %v", ok, err)
	}
	if d := time.Since(closed); d > lease+time.Second {
		t.Fatalf("lock freed %v after Close, want within the %v lease", d, lease)
	}
}

func TestLostWhenLockDisappears(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	c := newClient(t, rdb, WithWatchdogTimeout(300*time.Millisecond))
	m := c.NewMutex("lost")
	if !isClosed(m.Lost()) {
		t.Fatal("Lost of an unheld Mutex is not closed")
	}
	if err := m.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	if ok, err := c.NewMutex("lost").ForceUnlock(ctx); !ok || err != nil {
		t.Fatalf("ForceUnlock = %v, %v", ok, err)
	}
	select {
	case <-m.Lost():
	case <-time.After(2 * time.Second):
		t.Fatal("Lost not closed within a renewal period of the lock vanishing")
	}
	if err := m.Unlock(ctx); !errors.Is(err, ErrNotHeld) {
		t.Fatalf("Unlock of a lost lock = %v, want ErrNotHeld", err)
	}
	// The Mutex can be locked again afterwards, with a fresh hold.
	if err := m.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case <-m.Lost():
		t.Fatal("the new hold reports lost")
	default:
	}
}

// A goroutine that asks after its lease's loss moment has passed learns
// of the loss before the timer watching the lease fires, as when a paused
// process resumes: asked first, the hold's Context has ended with ErrLost,
// or Lost is closed; and Unlock says ErrNotHeld. The test stops the
// watchdog's timers to stand for the pause.
func TestLossSeenBeforeTheLeaseTimerFires(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	c := newClient(t, rdb)
	const lease = 300 * time.Millisecond
	var ms []*Mutex
	var hctxs []context.Context
	for _, name := range []string{"context-asked-first", "lost-asked-first"} {
		m := c.NewMutex(name)
		if err := m.LockWithLease(ctx, lease); err != nil {
			t.Fatal(err)
		}
		hctx, cancel := m.Context(ctx)
		defer cancel()
		ms, hctxs = append(ms, m), append(hctxs, hctx)
	}
	c.wd.mu.Lock()
	for _, tm := range c.wd.timers {
		if tm != nil {
			tm.Stop()
		}
	}
	c.wd.mu.Unlock()
	time.Sleep(lease) // time is the subject: the leases run out unwatched
	if err := hctxs[0].Err(); err == nil || context.Cause(hctxs[0]) != ErrLost {
		t.Errorf("the hold's Context after its lease ran out: Err %v, cause %v; want ErrLost", err, context.Cause(hctxs[0]))
	}
	if !testkit.Closed(ms[1].Lost()) {
		t.Error("Lost open after the lease ran out")
	}
	for _, m := range ms {
		if err := m.Unlock(ctx); !errors.Is(err, ErrNotHeld) {
			t.Errorf("Unlock after the lease ran out = %v, want ErrNotHeld", err)
		}
	}
}
