package rlock

import (
	"math"
	"testing"
	"time"

	"github.com/relock-go/relock/internal/keys"
	"github.com/relock-go/relock/queue"
)

// Holders that die one after another (fixed leases, never unlocked) cost
// each waiter about one lease each, at any place in the queue: the second
// waiter, not the head when it went to sleep, is not left sleeping a
// heartbeat.
func TestFairMutexDyingHoldersDoNotStallTheQueue(t *testing.T) {
	// Long enough for both waiters to queue before the first holder dies,
	// on a loaded machine too.
	const lease = time.Second
	c, rdb := fairClient(t)
	waiters, _ := fairClient(t)
	ctx := ctxT(t)
	const name = "fair-dying"
	if err := c.NewFairMutex(name).LockWithLease(ctx, lease); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	first, second := waiters.NewFairMutex(name), waiters.NewFairMutex(name)
	results := make(chan time.Time, 2)
	for _, f := range []*FairMutex{first, second} {
		// The line to see once f queued, read before f can queue.
		want := append(queueOf(t, rdb, name), f.Owner())
		go func() {
			// Each holds with a fixed lease and never unlocks: it dies.
			if err := f.LockWithLease(ctx, lease); err != nil {
				t.Error(err)
			}
			results <- time.Now()
		}()
		awaitQueue(t, rdb, name, want...)
	}
	for i := 1; i <= 2; i++ {
		select {
		case at := <-results:
			// i leases in a row, plus slack for a loaded machine.
			if d := at.Sub(start); d > time.Duration(i)*lease+time.Second {
				t.Fatalf("grant %d came %v after the first holder locked, %d leases of %v", i, d, i, lease)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("grant %d never came", i)
		}
	}
}

// Deadlines are Redisson's: the first waiter's is the lock's TTL plus the
// wait timeout from now, each next one's the previous one's plus the wait
// timeout, and while a Redisson waiter is queued, a grant takes the wait
// timeout off every one left.
func TestFairMutexDeadlinesAreRedissons(t *testing.T) {
	const wait = 20 * time.Second
	const name = "fair-deadlines"
	c, rdb, ctx, holder := heldFair(t, name, WithFairWaitTimeout(wait), WithWatchdogTimeout(time.Minute))
	ws, gots := queueFairWaiters(t, c, rdb, name, 2)
	java := queue.New(rdb, name, wait, publishCmd).Place("java:1")
	if _, err := java.Attempt(ctx, rdb, time.Minute, 0); err != nil {
		t.Fatal(err)
	}
	asRedissonWaiter(t, rdb, name, "java:1")
	ids := []string{ws[0].Owner(), ws[1].Owner(), "java:1"}
	d := make([]float64, 3)
	for i, id := range ids {
		d[i], _ = deadlineOf(t, rdb, name, id)
	}
	now := float64(time.Now().UnixMilli())
	ms := float64(wait.Milliseconds())
	if first := d[0] - now; math.Abs(first-(time.Minute+wait).Seconds()*1000) > 2000 {
		t.Errorf("first deadline %v ms away, want about the lock's TTL (1m) plus the wait (20s)", first)
	}
	for i := 1; i < 3; i++ {
		if d[i]-d[i-1] != ms {
			t.Errorf("deadline %d is %v ms after the one before, want %v", i, d[i]-d[i-1], ms)
		}
	}
	mustUnlock(t, holder)
	awaitLock(t, gots[0], 5*time.Second)
	for i := 1; i < 3; i++ {
		if after, _ := deadlineOf(t, rdb, name, ids[i]); after != d[i]-ms {
			t.Errorf("deadline %d after a grant: %v, want %v", i, after, d[i]-ms)
		}
	}
	mustUnlock(t, ws[0])
	awaitLock(t, gots[1], 5*time.Second)
	if err := java.Leave(ctx); err != nil {
		t.Fatal(err)
	}
	mustUnlock(t, ws[1])
	assertNoFairKeys(t, rdb, name)
}

// A relock waiter whose process died is evicted when its turn comes: the
// waiter behind it gets the lock at once, not a wait timeout later.
func TestFairMutexDeadWaiterEvictedOnItsTurn(t *testing.T) {
	const name = "fair-dead-turn"
	c, rdb, ctx, holder := heldFair(t, name)
	// Queued by a relock client that died: nobody listens on its channel.
	dead := queue.New(rdb, name, DefaultFairWaitTimeout, publishCmd).Place("dead:1")
	if _, err := dead.Attempt(ctx, rdb, time.Minute, 0); err != nil {
		t.Fatal(err)
	}
	live := c.NewFairMutex(name)
	got := lockAsync(ctx, live)
	awaitQueue(t, rdb, name, "dead:1", live.Owner())
	released := time.Now()
	mustUnlock(t, holder)
	// The 5-minute wait timeout is not waited for.
	if d := awaitLock(t, got, 5*time.Second).Sub(released); d > time.Second {
		t.Errorf("the live waiter got the lock %v after the release", d)
	}
	if rdb.HExists(ctx, keys.FairWaiters(name), "dead:1").Val() {
		t.Error("the dead waiter is still marked")
	}
	mustUnlock(t, live)
	assertNoFairKeys(t, rdb, name)
}
