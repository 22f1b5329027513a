package rlock

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/relock-go/relock/queue"
)

// TestFairMutexGrantsInArrivalOrder queues waiters of several Clients one
// after another behind a held lock and checks that they get it in exactly
// that order. The wait timeout is long, so every hand-off is a wake-up on
// the next waiter's channel, not a heartbeat.
func TestFairMutexGrantsInArrivalOrder(t *testing.T) { grantsInArrivalOrder(t, "fair-order") }

// Waiters that poll (WithSpin) instead of listening are not taken for
// dead at their turn, and keep their order.
func TestFairMutexSpinningWaitersKeepTheirOrder(t *testing.T) {
	grantsInArrivalOrder(t, "fair-spin-order", WithSpin(ConstantBackoff(2*time.Millisecond)))
}

// grantsInArrivalOrder has waiters of several Clients with opts queue for
// a held fair lock one after another, and checks that the lock goes to
// them in that order, quickly.
func grantsInArrivalOrder(t *testing.T, prefix string, opts ...Option) {
	const clients, waiters, rounds = 3, 12, 3
	cs := make([]*Client, clients)
	for i := range cs {
		cs[i], _ = fairClient(t, opts...)
	}
	_, rdb := fairClient(t)
	ctx := context.Background()
	for round := range rounds {
		name := fmt.Sprintf("%s-%d", prefix, round)
		holder := cs[0].NewFairMutex(name)
		if err := holder.Lock(ctx); err != nil {
			t.Fatal(err)
		}
		var (
			mu    sync.Mutex
			order []string
		)
		var arrival []string
		var wg sync.WaitGroup
		for i := range waiters {
			f := cs[i%clients].NewFairMutex(name)
			arrival = append(arrival, f.Owner())
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := f.Lock(ctx); err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				order = append(order, f.Owner())
				mu.Unlock()
				if err := f.Unlock(ctx); err != nil {
					t.Error(err)
				}
			}()
			awaitQueue(t, rdb, name, arrival...)
		}
		start := time.Now()
		mustUnlock(t, holder)
		wg.Wait()
		elapsed := time.Since(start)
		if !slices.Equal(order, arrival) {
			t.Fatalf("round %d: grants %v, arrivals %v", round, order, arrival)
		}
		// Far below one heartbeat (10s/3): nobody waited for a timer.
		if elapsed > 2*time.Second {
			t.Errorf("round %d: %d hand-offs took %v", round, waiters, elapsed)
		}
		assertNoFairKeys(t, rdb, name)
	}
}

// TestFairMutexTryLockNeverBarges releases a lock with a waiter queued and
// immediately tries it with a single attempt from a newcomer: whether or
// not the waiter has claimed it yet, the newcomer must fail.
func TestFairMutexTryLockNeverBarges(t *testing.T) {
	a, rdb := fairClient(t)
	b, _ := fairClient(t)
	ctx := context.Background()
	const name = "fair-nobarge"
	newcomer := b.NewFairMutex(name)
	for i := range 30 {
		holder := a.NewFairMutex(name)
		if err := holder.Lock(ctx); err != nil {
			t.Fatal(err)
		}
		w := a.NewFairMutex(name)
		got := lockAsync(ctx, w)
		awaitQueue(t, rdb, name, w.Owner())
		mustUnlock(t, holder)
		ok, err := newcomer.TryLock(ctx, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			t.Fatalf("attempt %d: newcomer barged ahead of the queued waiter", i)
		}
		awaitLock(t, got, 2*time.Second)
		mustUnlock(t, w)
	}
	assertNoFairKeys(t, rdb, name)
}

// TestFairMutexNoBargingWhileHeadHasNotClaimed leaves the lock free with a
// head waiter that never claims it: neither a single attempt nor a timed
// one may take the lock, and the timed one leaves no trace in the queue.
func TestFairMutexNoBargingWhileHeadHasNotClaimed(t *testing.T) {
	c, rdb := fairClient(t)
	ctx := context.Background()
	const name = "fair-unclaimed"
	holder := c.NewFairMutex(name)
	if err := holder.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	// A waiter that queues and then neither claims nor leaves.
	stuck := queue.New(rdb, name, time.Minute, publishCmd).Place("stuck:1")
	if a, err := stuck.Attempt(ctx, rdb, time.Second, 0); err != nil || a.Position != 0 {
		t.Fatalf("stuck waiter: %+v %v", a, err)
	}
	asRedissonWaiter(t, rdb, name, "stuck:1")
	mustUnlock(t, holder)
	newcomer := c.NewFairMutex(name)
	if ok, err := newcomer.TryLock(ctx, 0, 0); ok || err != nil {
		t.Fatalf("single attempt: %v %v", ok, err)
	}
	if ok, err := newcomer.TryLock(ctx, 100*time.Millisecond, 0); ok || err != nil {
		t.Fatalf("timed attempt: %v %v", ok, err)
	}
	if locked, err := newcomer.IsLocked(ctx); locked || err != nil {
		t.Fatalf("IsLocked %v %v", locked, err)
	}
	awaitQueue(t, rdb, name, "stuck:1")
	if err := stuck.Leave(ctx); err != nil {
		t.Fatal(err)
	}
	assertNoFairKeys(t, rdb, name)
}

// TestFairMutexWakesWaiterQueuedJustBeforeUnlock unlocks the moment a
// waiter appears in the queue. The waiter listened before it queued, so it
// is woken at once, not after the lock's TTL or a heartbeat.
func TestFairMutexWakesWaiterQueuedJustBeforeUnlock(t *testing.T) {
	c, rdb := fairClient(t)
	ctx := context.Background()
	const name = "fair-nolostwakeup"
	for range 20 {
		holder := c.NewFairMutex(name)
		if err := holder.Lock(ctx); err != nil {
			t.Fatal(err)
		}
		w := c.NewFairMutex(name)
		got := lockAsync(ctx, w)
		awaitQueue(t, rdb, name, w.Owner())
		released := time.Now()
		mustUnlock(t, holder)
		if d := awaitLock(t, got, 5*time.Second).Sub(released); d > time.Second {
			t.Fatalf("woken %v after the unlock", d)
		}
		mustUnlock(t, w)
	}
	assertNoFairKeys(t, rdb, name)
}

// TestFairMutexGivingUpLeavesQueue has the middle of three waiters give up,
// by its wait elapsing or its ctx ending: it is gone from the queue and the
// deadlines, the deadline behind it moved up one wait timeout, and the
// others are still served in order.
func TestFairMutexGivingUpLeavesQueue(t *testing.T) {
	for _, tc := range []struct {
		name string
		// start makes f wait in a goroutine and returns the channel of its
		// outcome and the function that makes it give up.
		start func(f *FairMutex) (done <-chan error, giveUp func())
	}{
		{"wait elapsed", func(f *FairMutex) (<-chan error, func()) {
			done := make(chan error, 1)
			go func() {
				ok, err := f.TryLock(context.Background(), time.Second, 0)
				if ok {
					err = errors.New("TryLock got the lock")
				}
				done <- err
			}()
			return done, func() {}
		}},
		{"ctx cancelled", func(f *FairMutex) (<-chan error, func()) {
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() {
				err := f.Lock(ctx)
				if !errors.Is(err, context.Canceled) {
					err = fmt.Errorf("Lock returned %v, want context.Canceled", err)
				} else {
					err = nil
				}
				done <- err
			}()
			return done, cancel
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const wait = 10 * time.Second
			c, rdb := fairClient(t, WithFairWaitTimeout(wait))
			ctx := context.Background()
			name := "fair-giveup-" + tc.name
			holder := c.NewFairMutex(name)
			if err := holder.Lock(ctx); err != nil {
				t.Fatal(err)
			}
			first, quitter, last := c.NewFairMutex(name), c.NewFairMutex(name), c.NewFairMutex(name)
			gotFirst := lockAsync(ctx, first)
			awaitQueue(t, rdb, name, first.Owner())
			quitDone, giveUp := tc.start(quitter)
			awaitQueue(t, rdb, name, first.Owner(), quitter.Owner())
			gotLast := lockAsync(ctx, last)
			awaitQueue(t, rdb, name, first.Owner(), quitter.Owner(), last.Owner())
			before, _ := deadlineOf(t, rdb, name, last.Owner())

			giveUp()
			if err := <-quitDone; err != nil {
				t.Fatal(err)
			}
			awaitQueue(t, rdb, name, first.Owner(), last.Owner())
			if _, ok := deadlineOf(t, rdb, name, quitter.Owner()); ok {
				t.Error("the waiter that gave up still has a deadline")
			}
			after, _ := deadlineOf(t, rdb, name, last.Owner())
			if before-after != float64(wait.Milliseconds()) {
				t.Errorf("deadline behind moved from %v to %v, want %v earlier", before, after, wait.Milliseconds())
			}
			mustUnlock(t, holder)
			awaitLock(t, gotFirst, 2*time.Second)
			mustUnlock(t, first)
			awaitLock(t, gotLast, 2*time.Second)
			mustUnlock(t, last)
			assertNoFairKeys(t, rdb, name)
		})
	}
}
