package rlock

import (
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/internal/keys"
	"github.com/relock-go/relock/queue"
	"github.com/relock-go/relock/test/redistest"
)

// A release grants the lock to a relock head inside the release script: by
// the time Unlock returns, the waiter's field is written and nobody can
// take the free lock in between; the waiter then returns holding it once.
func TestFairMutexGrantsInTheRelease(t *testing.T) {
	const name = "fair-grant"
	c, rdb, ctx, holder := heldFair(t, name)
	waiter := c.NewFairMutex(name)
	got := lockAsync(ctx, waiter)
	awaitQueue(t, rdb, name, waiter.Owner())
	mustUnlock(t, holder)
	if n := rdb.HGet(ctx, name, waiter.Owner()).Val(); n != "1" {
		t.Fatalf("after Unlock the waiter's field is %q, want 1: not granted in the release", n)
	}
	if ok, err := c.NewFairMutex(name).TryLock(ctx, 0, 0); ok || err != nil {
		t.Fatalf("a newcomer took a granted lock: %v %v", ok, err)
	}
	awaitLock(t, got, 5*time.Second)
	if n, err := waiter.HoldCount(ctx); n != 1 || err != nil {
		t.Fatalf("HoldCount after the grant = %d, %v; want 1", n, err)
	}
	mustUnlock(t, waiter)
	assertNoFairKeys(t, rdb, name)
}

// The grant message tells the waiter it holds the lock: it returns without
// another attempt, its hold (kept by the watchdog) needs no claim, a
// re-entry counts as one, and a grant of an earlier wait is never taken
// for a new one.
func TestFairMutexGrantMessageHandsOverWithoutAnAttempt(t *testing.T) {
	rec := newRecorder()
	const name = "fair-grant-message"
	c, rdb, ctx, holder := heldFair(t, name, WithObserver(rec))
	waiter := c.NewFairMutex(name)
	got := lockAsync(ctx, waiter)
	awaitQueue(t, rdb, name, waiter.Owner())
	mustUnlock(t, holder)
	awaitLock(t, got, 5*time.Second)
	acq := rec.await(t, EventAcquired, func(e Event) bool { return e.Owner == waiter.Owner() })
	if !acq.Granted || acq.Wakeups != 1 {
		t.Fatalf("waiter's acquisition %+v, want granted by one message", acq)
	}
	if hs := c.Activity().Holds; len(hs) != 1 || time.Until(hs[0].LeaseEnd) < DefaultWatchdogTimeout/2 {
		t.Fatalf("holds %+v: want the waiter's, with most of its lease ahead", hs)
	}
	if err := waiter.Reenter(ctx); err != nil {
		t.Fatal(err)
	}
	if n, err := waiter.HoldCount(ctx); n != 2 || err != nil {
		t.Fatalf("HoldCount after re-entering a grant = %d, %v; want 2", n, err)
	}
	mustUnlock(t, waiter)
	// Nothing claimed the grant (a claim, before the re-entry at the
	// latest, clears the mark): the last release does.
	if mark := rdb.HGet(ctx, keys.FairWaiters(name), waiter.Owner()).Val(); mark != "granted" {
		t.Fatalf("the waiter's mark is %q while it holds the grant, want granted: the grant was claimed", mark)
	}
	mustUnlock(t, waiter)
	assertNoFairKeys(t, rdb, name)

	// The waiter's next wait (on its kept subscription) is not granted by
	// anything of the last one.
	if err := holder.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	if ok, err := waiter.TryLock(ctx, 100*time.Millisecond, 0); ok || err != nil {
		t.Fatalf("TryLock on a held lock = %v, %v", ok, err)
	}
	mustUnlock(t, holder)
	assertNoFairKeys(t, rdb, name)
}

// A grant to a waiter whose lease is its caller's is confirmed in the
// background, so that the lease runs from the grant, not from the
// waiter's last attempt: once the grant is confirmed (its mark gone), the
// lease the Client counts on ends a whole lease after the grant, where its
// last attempt was made a while before.
func TestFairMutexGrantOfACallersLeaseIsConfirmed(t *testing.T) {
	const name = "fair-grant-lease"
	// The grant is taken, and confirmed in the background, while less than
	// a sixth of the lease has passed since the last attempt.
	const lease, since = 2 * time.Second, 200 * time.Millisecond
	c, rdb, ctx, holder := heldFair(t, name)
	waiter := c.NewFairMutex(name)
	got := make(chan error, 1)
	go func() { got <- waiter.LockWithLease(ctx, lease) }()
	awaitQueue(t, rdb, name, waiter.Owner())
	// Its last attempt was its queueing one (it sleeps for the holder's
	// 30 s lease).
	time.Sleep(since) // time is the subject
	granted := time.Now()
	mustUnlock(t, holder)
	if err := <-got; err != nil {
		t.Fatal(err)
	}
	eventually(t, 5*time.Second, "the grant confirmed", func() bool {
		return !rdb.HExists(ctx, keys.FairWaiters(name), waiter.Owner()).Val()
	})
	// The claim's reply re-arms the lease the Client counts on: reckoned
	// from the last attempt, it would end since before a whole lease from
	// the grant.
	eventually(t, 5*time.Second, "the waiter's hold, its lease ending a whole lease after the grant", func() bool {
		hs := c.Activity().Holds
		return len(hs) == 1 && !hs[0].LeaseEnd.Before(granted.Add(lease-since/2))
	})
	mustUnlock(t, waiter)
	assertNoFairKeys(t, rdb, name)
}

// An owner whose place in line was lost while another of its goroutines
// took the lock re-enters it, and does not queue again: a queued holder
// would be granted its own lock at its release, with nobody to claim it.
func TestFairMutexHolderDoesNotQueueAgain(t *testing.T) {
	const name = "fair-holder-stays-out"
	_, rdb, ctx, holder := heldFair(t, name)
	q := queue.New(rdb, name, DefaultFairWaitTimeout, publishCmd)
	w := q.Place("owner:1")
	if a, err := w.Attempt(ctx, rdb, time.Minute, 0); err != nil || a.Position != 0 {
		t.Fatalf("queueing: %+v %v", a, err)
	}
	// Nobody listens for owner:1: the release evicts it, and the lock is
	// free. Another goroutine of the owner takes it.
	mustUnlock(t, holder)
	if a, err := q.TryAcquire(ctx, rdb, "owner:1", time.Minute, 0); err != nil || !a.Acquired {
		t.Fatalf("TryAcquire: %+v %v", a, err)
	}
	// The queued goroutine's next attempt re-enters the lock.
	if a, err := w.Attempt(ctx, rdb, time.Minute, 1); err != nil || !a.Acquired {
		t.Fatalf("attempt of the goroutine that was queued: %+v %v", a, err)
	}
	if n := rdb.HGet(ctx, name, "owner:1").Val(); n != "2" {
		t.Errorf("hold count %q, want 2", n)
	}
	if line := queueOf(t, rdb, name); len(line) != 0 {
		t.Errorf("line %v: the holder queued again", line)
	}
}

// A waiter with a short lease granted the lock long after its last
// attempt holds it for its whole lease: the grant is not reckoned from
// that attempt.
func TestFairMutexLateGrantKeepsTheWholeLease(t *testing.T) {
	const name = "fair-late-short-lease"
	c, rdb, ctx, holder := heldFair(t, name)
	const lease = 600 * time.Millisecond
	waiter := c.NewFairMutex(name)
	got := make(chan error, 1)
	go func() { got <- waiter.LockWithLease(ctx, lease) }()
	awaitQueue(t, rdb, name, waiter.Owner())
	// Its last attempt was its queueing one: let a whole lease pass.
	time.Sleep(lease) // time is the subject
	granted := time.Now()
	mustUnlock(t, holder)
	if err := <-got; err != nil {
		t.Fatal(err)
	}
	if hs := c.Activity().Holds; len(hs) != 1 || time.Until(hs[0].LeaseEnd) < lease/2 {
		t.Fatalf("holds %+v: want the waiter's, with most of its lease ahead", hs)
	}
	// Lost stays open through half the lease from the grant: reckoned from
	// the last attempt, the lease would have run out already.
	select {
	case <-waiter.Lost():
		d := time.Since(granted)
		if d < lease/2 {
			t.Fatalf("Lost closed %v after the grant, within half the %v lease", d, lease)
		}
		t.Logf("Lost closed %v after the grant: the machine is slow, and the lease ran out", d)
		return
	case <-time.After(lease/2 - time.Since(granted)):
	}
	if held, err := waiter.IsHeld(ctx); !held || err != nil {
		t.Fatalf("IsHeld half a lease after the grant = %v, %v; want the lock held for its lease", held, err)
	}
	mustUnlock(t, waiter)
}

// A waiter granted the lock after it gave up (its grant and its leaving
// crossed) gives the lock back when it leaves: the next waiter gets it.
func TestFairMutexGrantAfterGivingUpIsReturned(t *testing.T) {
	const name = "fair-late-grant"
	c, rdb, ctx, holder := heldFair(t, name)
	q := queue.New(rdb, name, DefaultFairWaitTimeout, publishCmd)
	quitter := q.Place("quitter:1")
	// The quitter listens, so the release grants it the lock.
	sub := rdb.Subscribe(ctx, q.Channel("quitter:1"))
	defer sub.Close()
	if _, err := sub.Receive(ctx); err != nil {
		t.Fatal(err)
	}
	if a, err := quitter.Attempt(ctx, rdb, time.Minute, 0); err != nil || a.Position != 0 {
		t.Fatalf("quitter: %+v %v", a, err)
	}
	next := c.NewFairMutex(name)
	got := lockAsync(ctx, next)
	awaitQueue(t, rdb, name, "quitter:1", next.Owner())
	mustUnlock(t, holder)
	if n := rdb.HGet(ctx, name, "quitter:1").Val(); n != "1" {
		t.Fatalf("quitter's field = %q, want the grant", n)
	}
	if err := quitter.Leave(ctx); err != nil {
		t.Fatal(err)
	}
	awaitLock(t, got, 5*time.Second)
	if rdb.HExists(ctx, name, "quitter:1").Val() {
		t.Fatal("the grant of a waiter that left is still held")
	}
	mustUnlock(t, next)
	assertNoFairKeys(t, rdb, name)
}

// A grant knows without looking that every waiter queued is relock's, and
// finds a Redisson waiter that joined behind them (as Redisson's script
// joins: no mark, nothing else written) by looking past them only: its
// deadline then moves up a wait timeout, as Redisson's grant rule says.
func TestFairGrantLooksOnlyPastTheRelockWaitersItKnows(t *testing.T) {
	const wait = 20 * time.Second
	const name = "fair-known"
	c, rdb, ctx, holder := heldFair(t, name, WithFairWaitTimeout(wait))
	ws, gots := queueFairWaiters(t, c, rdb, name, 2)
	scans := func() int64 {
		calls, err := redistest.CommandCalls(ctx, rdb)
		if err != nil {
			t.Fatal(err)
		}
		return calls["lrange"] // a scan reads the queue a slice at a time
	}
	before := scans()
	mustUnlock(t, holder)
	awaitLock(t, gots[0], 5*time.Second)
	if n := scans() - before; n != 0 {
		t.Fatalf("a grant with only relock waiters queued ran %d LRANGE, want none", n)
	}

	// A Redisson waiter joins behind ws[1], chained to its deadline.
	last, _ := deadlineOf(t, rdb, name, ws[1].Owner())
	if err := rdb.RPush(ctx, keys.Queue(name), "java:1").Err(); err != nil {
		t.Fatal(err)
	}
	if err := rdb.ZAdd(ctx, keys.Timeout(name), redis.Z{Score: last + float64(wait.Milliseconds()), Member: "java:1"}).Err(); err != nil {
		t.Fatal(err)
	}
	sub := rdb.Subscribe(ctx, keys.WaiterChannel(name, "java:1"))
	defer sub.Close()
	if _, err := sub.Receive(ctx); err != nil {
		t.Fatal(err)
	}
	joined, _ := deadlineOf(t, rdb, name, "java:1")
	mustUnlock(t, ws[0])
	awaitLock(t, gots[1], 5*time.Second)
	if after, _ := deadlineOf(t, rdb, name, "java:1"); after != joined-float64(wait.Milliseconds()) {
		t.Errorf("the Redisson waiter's deadline after a grant: %v, want %v (a wait timeout earlier)", after, joined-float64(wait.Milliseconds()))
	}
	// It gives up, as Redisson's script does.
	if err := rdb.LRem(ctx, keys.Queue(name), 0, "java:1").Err(); err != nil {
		t.Fatal(err)
	}
	if err := rdb.ZRem(ctx, keys.Timeout(name), "java:1").Err(); err != nil {
		t.Fatal(err)
	}
	mustUnlock(t, ws[1])
	assertNoFairKeys(t, rdb, name)
}

// A grant to a waiter the watchdog keeps, heard a while after its last
// attempt, is claimed: its lease runs from the grant, so that the
// watchdog's first renewal, up to a third of a lease later, has as much
// slack as after any acquisition. Reckoned from the last attempt, a
// renewal a sixth of the lease late would find the hold lost (a loaded
// machine's fair holders lost 600 ms leases so).
func TestFairMutexLateGrantOfAWatchdogLeaseIsClaimed(t *testing.T) {
	const name = "fair-late-watchdog-grant"
	const lease = 600 * time.Millisecond
	_, rdb, ctx, holder := heldFair(t, name)
	c, _ := fairClient(t, WithWatchdogTimeout(lease))
	waiter := c.NewFairMutex(name)
	got := make(chan error, 1)
	go func() { got <- waiter.Lock(ctx) }()
	awaitQueue(t, rdb, name, waiter.Owner())
	// Its last attempt was its queueing one (it sleeps for the holder's
	// 30 s lease): let 40% of its lease pass.
	time.Sleep(lease * 4 / 10) // time is the subject
	granted := time.Now()
	mustUnlock(t, holder)
	if err := <-got; err != nil {
		t.Fatal(err)
	}
	if hs := c.Activity().Holds; len(hs) != 1 || hs[0].LeaseEnd.Before(granted.Add(lease*8/10)) {
		t.Fatalf("holds %+v: want the waiter's, its lease ending a whole lease after the grant (%v)", hs, granted.Add(lease))
	}
	mustUnlock(t, waiter)
	assertNoFairKeys(t, rdb, name)
}
