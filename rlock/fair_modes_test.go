package rlock

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// lockUnlocker is a Mutex or a FairMutex.
type lockUnlocker interface {
	Lock(context.Context) error
	Unlock(context.Context) error
}

// exclusionWorkers runs workers goroutines that each lock, check that they
// are alone inside, and unlock, iterations times. It fails the test if two
// were ever inside at once.
func exclusionWorkers(t *testing.T, wg *sync.WaitGroup, inside *atomic.Int32, workers, iterations int, newLock func() lockUnlocker) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	for range workers {
		l := newLock()
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range iterations {
				if err := l.Lock(ctx); err != nil {
					t.Error(err)
					return
				}
				if n := inside.Add(1); n != 1 {
					t.Errorf("%d owners inside at once", n)
				}
				time.Sleep(100 * time.Microsecond) // the critical section
				inside.Add(-1)
				if err := l.Unlock(ctx); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	t.Cleanup(cancel)
}

// TestFairAndNonFairLocksSideBySide runs fair and non-fair locks of
// different names in one Client at once: each excludes its own owners, and
// neither leaves anything behind.
func TestFairAndNonFairLocksSideBySide(t *testing.T) {
	c, rdb := fairClient(t)
	var wg sync.WaitGroup
	var inFair, inPlain atomic.Int32
	exclusionWorkers(t, &wg, &inFair, 4, 20, func() lockUnlocker {
		return c.NewFairMutex("side-fair")
	})
	exclusionWorkers(t, &wg, &inPlain, 4, 20, func() lockUnlocker {
		return c.NewMutex("side-plain")
	})
	wg.Wait()
	assertNoFairKeys(t, rdb, "side-fair")
	assertNoFairKeys(t, rdb, "side-plain")
}

// TestFairAndNonFairOnSameName checks the documented behaviour of mixing
// the two kinds on one name: they exclude each other, a waiter of one kind
// gets a lock released by the other kind after its timed sleep, and
// nothing is left in Redis.
func TestFairAndNonFairOnSameName(t *testing.T) {
	const wait = 300 * time.Millisecond // fair heartbeat 100ms
	c, rdb := fairClient(t, WithFairWaitTimeout(wait), WithWatchdogTimeout(time.Second))
	ctx := context.Background()
	const name = "mixed"

	plain, fair := c.NewMutex(name), c.NewFairMutex(name)
	if err := plain.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	if ok, err := fair.TryLock(ctx, 0, 0); ok || err != nil {
		t.Fatalf("fair TryLock over a non-fair holder: %v %v", ok, err)
	}
	got := lockAsync(ctx, fair)
	awaitQueue(t, rdb, name, fair.Owner())
	released := time.Now()
	mustUnlock(t, plain) // announced on the shared channel, not to the head
	if d := awaitLock(t, got, 2*time.Second).Sub(released); d > wait/3+300*time.Millisecond {
		t.Errorf("fair waiter got a non-fair release after %v, want within a heartbeat", d)
	}
	if ok, err := plain.TryLock(ctx, 0, 0); ok || err != nil {
		t.Fatalf("non-fair TryLock over a fair holder: %v %v", ok, err)
	}
	mustUnlock(t, fair)

	// Both kinds at once: exclusion holds throughout.
	var wg sync.WaitGroup
	var inside atomic.Int32
	exclusionWorkers(t, &wg, &inside, 3, 5, func() lockUnlocker {
		return c.NewFairMutex(name)
	})
	exclusionWorkers(t, &wg, &inside, 3, 5, func() lockUnlocker {
		return c.NewMutex(name)
	})
	wg.Wait()
	assertNoFairKeys(t, rdb, name)
}
