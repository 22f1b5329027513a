package rlock

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/internal/keys"
	"github.com/relock-go/relock/queue"
	"github.com/relock-go/relock/test/redistest"
)

// TestFairMutexNeverEvictsLiveWaiter keeps a waiter waiting for ten wait
// timeouts: it stays at the head of the queue throughout and gets the lock
// before a later arrival. Then its deadline is wiped out as a Redisson
// client with a larger wait timeout would do, so that another client's
// script evicts it: it takes its place at the head back.
func TestFairMutexNeverEvictsLiveWaiter(t *testing.T) {
	const wait = 150 * time.Millisecond
	c, rdb := fairClient(t, WithFairWaitTimeout(wait))
	ctx := context.Background()
	const name = "fair-live"
	holder := c.NewFairMutex(name)
	if err := holder.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	live := c.NewFairMutex(name)
	got := lockAsync(ctx, live)
	awaitQueue(t, rdb, name, live.Owner())
	for end := time.Now().Add(10 * wait); time.Now().Before(end); {
		if q := queueOf(t, rdb, name); !slices.Equal(q, []string{live.Owner()}) {
			t.Fatalf("live waiter left the queue: %v", q)
		}
		// It refreshes every wait/3: its deadline never passes.
		if d, _ := deadlineOf(t, rdb, name, live.Owner()); d <= float64(time.Now().UnixMilli()) {
			t.Fatalf("live waiter's deadline is %v ms from now", d-float64(time.Now().UnixMilli()))
		}
		newcomer := c.NewFairMutex(name)
		if ok, err := newcomer.TryLock(ctx, 0, 0); ok || err != nil { // runs the eviction rule
			t.Fatalf("newcomer: %v %v", ok, err)
		}
		time.Sleep(wait / 10) // sampling interval, not synchronisation
	}

	// A foreign grant took a large wait timeout off its deadline.
	if err := rdb.ZAdd(ctx, keys.Timeout(name), redis.Z{Score: 0, Member: live.Owner()}).Err(); err != nil {
		t.Fatal(err)
	}
	later := c.NewFairMutex(name)
	gotLater := lockAsync(ctx, later)
	// later's attempt evicted live as stale; live's next heartbeat puts it
	// back at the head.
	awaitQueue(t, rdb, name, live.Owner(), later.Owner())
	mustUnlock(t, holder)
	first := awaitLock(t, got, 2*time.Second)
	mustUnlock(t, live)
	second := awaitLock(t, gotLater, 2*time.Second)
	if !first.Before(second) {
		t.Error("the later arrival got the lock first")
	}
	mustUnlock(t, later)
	assertNoFairKeys(t, rdb, name)
}

// TestFairMutexNoBusyRetryWhileHeadHasNotClaimed leaves the lock free with
// a head waiter that does not claim it and counts the Redis commands of the
// live waiters behind it: one attempt per heartbeat each, no tight loop.
// When the head finally leaves, the next waiter is woken at once.
func TestFairMutexNoBusyRetryWhileHeadHasNotClaimed(t *testing.T) {
	const wait, waiters, window = 1500 * time.Millisecond, 4, time.Second
	heartbeat := wait / 3
	c, rdb := fairClient(t, WithFairWaitTimeout(wait))
	ctx := context.Background()
	const name = "fair-nobusy"
	holder := c.NewFairMutex(name)
	if err := holder.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	// A waiter with the same wait timeout that does not claim the lock for
	// now: its deadline is a minute away.
	slow := queue.New(rdb, name, wait, publishCmd).Place("slow-client:1")
	if _, err := slow.Attempt(ctx, rdb, time.Second, 0); err != nil {
		t.Fatal(err)
	}
	asRedissonWaiter(t, rdb, name, "slow-client:1")
	later := float64(time.Now().Add(time.Minute).UnixMilli())
	if err := rdb.ZAdd(ctx, keys.Timeout(name), redis.Z{Score: later, Member: "slow-client:1"}).Err(); err != nil {
		t.Fatal(err)
	}
	want := []string{"slow-client:1"}
	var gots []<-chan lockResult
	var ws []*FairMutex
	for range waiters {
		w := c.NewFairMutex(name)
		ws = append(ws, w)
		gots = append(gots, lockAsync(ctx, w))
		want = append(want, w.Owner())
		awaitQueue(t, rdb, name, want...)
	}
	mustUnlock(t, holder)

	before, err := redistest.CommandCalls(ctx, rdb)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(window) // the window in which commands are counted
	after, err := redistest.CommandCalls(ctx, rdb)
	if err != nil {
		t.Fatal(err)
	}
	attempts := after["evalsha"] + after["eval"] - before["evalsha"] - before["eval"]
	limit := int64(waiters * (int(window/heartbeat) + 2))
	t.Logf("%d attempts by %d waiters in %v (heartbeat %v)", attempts, waiters, window, heartbeat)
	if attempts > limit {
		t.Errorf("%d attempts in %v, want at most %d", attempts, window, limit)
	}
	if locked, err := holder.IsLocked(ctx); locked || err != nil {
		t.Fatalf("IsLocked %v %v: someone barged", locked, err)
	}

	left := time.Now()
	if err := slow.Leave(ctx); err != nil {
		t.Fatal(err)
	}
	for i, w := range ws {
		at := awaitLock(t, gots[i], 2*time.Second)
		if i == 0 && at.Sub(left) > heartbeat/2 {
			t.Errorf("next waiter got the lock %v after the head left", at.Sub(left))
		}
		mustUnlock(t, w)
	}
	assertNoFairKeys(t, rdb, name)
}

// TestFairWaitTimeoutOption rejects wait timeouts too small to refresh.
func TestFairWaitTimeoutOption(t *testing.T) {
	for _, d := range []time.Duration{-time.Second, 0, 2 * time.Millisecond} {
		if err := WithFairWaitTimeout(d)(new(options)); err == nil {
			t.Errorf("WithFairWaitTimeout(%v) accepted", d)
		}
	}
	o := defaultOptions()
	if o.fairWaitTimeout != DefaultFairWaitTimeout {
		t.Errorf("default %v, want %v", o.fairWaitTimeout, DefaultFairWaitTimeout)
	}
	if err := WithFairWaitTimeout(time.Second)(&o); err != nil || o.fairWaitTimeout != time.Second {
		t.Errorf("WithFairWaitTimeout(1s): %v %v", o.fairWaitTimeout, err)
	}
}
