package rlock

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/internal/keys"
	"github.com/relock-go/relock/test/redistest"
)

func TestWaiterWakesOnUnlockWithoutPolling(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	holder := newClient(t, rdb).NewMutex("wake")
	waiterClient := newClient(t, rdb)
	// The holder's lease (watchdog, 30s) is far longer than the test: only
	// the unlock message can wake the waiter in time.
	if err := holder.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	acquired := lockAsync(ctx, waiterClient.NewMutex("wake"))
	channel := keys.Channel("wake")
	eventually(t, 5*time.Second, "waiter subscribed", func() bool {
		return rdb.PubSubNumSub(ctx, channel).Val()[channel] == 1
	})
	before := evalCalls(t, rdb)
	select {
	case <-acquired:
		t.Fatal("waiter acquired a held lock")
	case <-time.After(300 * time.Millisecond): // time is the subject: nothing may happen
	}
	// After subscribing the waiter makes one more attempt, then sleeps.
	if polled := evalCalls(t, rdb) - before; polled > 1 {
		t.Fatalf("waiter ran %d scripts in 300ms while the lock was held: polling", polled)
	}

	unlocked := time.Now()
	if err := holder.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case got := <-acquired:
		if got.err != nil {
			t.Fatal(got.err)
		}
		t.Logf("hand-off %v after unlock", got.at.Sub(unlocked))
	case <-time.After(5 * time.Second):
		t.Fatal("waiter not woken by the unlock")
	}
	eventually(t, 5*time.Second, "subscription released", func() bool {
		return rdb.PubSubNumSub(ctx, channel).Val()[channel] == 0
	})
}

// evalCalls is the number of script calls the server has run.
func evalCalls(t *testing.T, rdb redis.UniversalClient) int64 {
	t.Helper()
	calls, err := redistest.CommandCalls(context.Background(), rdb)
	if err != nil {
		t.Fatal(err)
	}
	return calls["evalsha"] + calls["eval"]
}

// An Unlock passes the lock to a waiter of its own Client in the release
// script: one script per hand-off, and nobody else retries.
func TestUnlockPassesTheLockOnInOneScript(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	c := newClient(t, rdb)
	const waiters = 6
	holder, acquired := heldWithWaiters(t, c, "herd", waiters)
	for range waiters {
		before := evalCalls(t, rdb)
		if err := holder.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
		holder = <-acquired
		eventually(t, 5*time.Second, "the others asleep again", func() bool {
			return hubOf(c).Stats().Sleeping == hubOf(c).Stats().Subscriptions
		})
		// The unlock alone: the waiter it passed the lock to made no
		// attempt, and nobody else retried.
		if n := evalCalls(t, rdb) - before; n != 1 {
			t.Fatalf("one hand-off ran %d scripts, want 1 (the unlock)", n)
		}
	}
	if err := holder.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
}

// heldWithWaiters locks name with a new Mutex of c and starts n more that
// wait for it, each sent on acquired once it holds the lock; it returns
// once all n are asleep.
func heldWithWaiters(t *testing.T, c *Client, name string, n int) (holder *Mutex, acquired <-chan *Mutex) {
	t.Helper()
	ctx := ctxT(t)
	holder = c.NewMutex(name)
	if err := holder.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	got := make(chan *Mutex, n)
	for range n {
		go func() {
			m := c.NewMutex(name)
			if err := m.Lock(ctx); err != nil {
				t.Error(err)
			}
			got <- m
		}()
	}
	eventually(t, 5*time.Second, "all waiters asleep", func() bool { return hubOf(c).Stats().Sleeping == n })
	return holder, got
}

func TestForceUnlockWakesWaiter(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	c := newClient(t, rdb)
	if err := c.NewMutex("force").Lock(ctx); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- newClient(t, rdb).NewMutex("force").Lock(ctx) }()
	eventually(t, 5*time.Second, "waiter subscribed", func() bool {
		return rdb.PubSubNumSub(ctx, keys.Channel("force")).Val()[keys.Channel("force")] == 1
	})
	if ok, err := c.NewMutex("force").ForceUnlock(ctx); !ok || err != nil {
		t.Fatalf("ForceUnlock = %v, %v", ok, err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("waiter not woken by ForceUnlock")
	}
	if ok, _ := c.NewMutex("none").ForceUnlock(ctx); ok {
		t.Fatal("ForceUnlock of a free lock reported true")
	}
}

func TestCancelledWaitLeavesNoSubscription(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	c := newClient(t, rdb)
	if err := c.NewMutex("cancel").Lock(ctx); err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- c.NewMutex("cancel").Lock(wctx) }()
	channel := keys.Channel("cancel")
	eventually(t, 5*time.Second, "waiter subscribed", func() bool {
		return rdb.PubSubNumSub(ctx, channel).Val()[channel] == 1
	})
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Lock = %v, want context.Canceled", err)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("Lock did not return after its context was cancelled")
	}
	eventually(t, 5*time.Second, "channel unsubscribed", func() bool {
		return rdb.PubSubNumSub(ctx, channel).Val()[channel] == 0 && hubOf(c).Stats().Channels == 0
	})

	// A context cancelled before the call returns at once.
	if ok, err := c.NewMutex("cancel").TryLock(wctx, time.Minute, 0); ok || !errors.Is(err, context.Canceled) {
		t.Fatalf("TryLock with a cancelled context = %v, %v", ok, err)
	}
}

func TestWaitersOfOneClientAcquireInArrivalOrder(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	holder := newClient(t, rdb).NewMutex("turns")
	if err := holder.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	c := newClient(t, rdb)
	const waiters = 5
	order := make(chan int, waiters)
	var wg sync.WaitGroup
	defer wg.Wait()
	for i := range waiters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m := c.NewMutex("turns")
			if err := m.Lock(ctx); err != nil {
				t.Error(err)
				return
			}
			order <- i
			if err := m.Unlock(ctx); err != nil {
				t.Error(err)
			}
		}()
		eventually(t, 5*time.Second, "waiter asleep", func() bool { return hubOf(c).Stats().Sleeping == i+1 })
	}
	if err := holder.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	for want := range waiters {
		select {
		case got := <-order:
			if got != want {
				t.Fatalf("waiter %d acquired in turn %d", got, want)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("hand-offs stalled")
		}
	}
}

func TestOwnerThatUnlocksQueuesBehindItsClientsWaiters(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	c := newClient(t, rdb)
	releaser := c.NewMutex("again")
	if err := releaser.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	got := make(chan string, 2)
	var wg sync.WaitGroup
	defer wg.Wait()
	wg.Add(1)
	go func() {
		defer wg.Done()
		m := c.NewMutex("again")
		if err := m.Lock(ctx); err == nil {
			got <- "waiter"
			m.Unlock(ctx)
		}
	}()
	eventually(t, 5*time.Second, "waiter asleep", func() bool { return hubOf(c).Stats().Sleeping == 1 })
	if err := releaser.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	// Locking again at once, the releaser would usually win the race; it
	// waits its turn instead.
	if err := releaser.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	got <- "releaser"
	if first := <-got; first != "waiter" {
		t.Fatalf("%s acquired first, want the waiter that was asleep", first)
	}
}
