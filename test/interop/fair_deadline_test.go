package interop

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/internal/keys"
	"github.com/relock-go/relock/rlock"
	"github.com/relock-go/relock/test/testkit"
	"github.com/relock-go/relock/test/testkit/lockkit"
)

// deadlineLeft is how far owner's deadline in the fair lock's queue is
// from now, on the server's clock.
func deadlineLeft(ctx context.Context, rdb *redis.Client, name, owner string) time.Duration {
	return time.Duration(rdb.ZScore(ctx, keys.Timeout(name), owner).Val()-Millis(rdb.Time(ctx).Val())) * time.Millisecond
}

// goFairWait is the Go side's fair wait timeout in the short-wait tests.
const goFairWait = time.Minute

// shortWait is a fair lock held by a Go owner (holder, for a fixed lease)
// of a Client whose fair wait timeout is goFairWait, and javas,
// Redisson peers ready to wait on it (Go starts each) that chain their
// deadlines with no wait timeout at all (--fairwait 0).
type shortWait struct {
	ctx    context.Context
	rdb    *redis.Client
	c      *rlock.Client
	holder *rlock.FairMutex
	javas  []*Peer
}

// newShortWait starts it on name, with javas peers and the holder's lease.
func newShortWait(t *testing.T, name string, javas int, lease time.Duration) shortWait {
	t.Helper()
	rdb, _ := setup(t)
	w := shortWait{ctx: testkit.Ctx(t, 2*time.Minute), rdb: rdb,
		c: lockkit.NewClient(t, rdb, rlock.WithFairWaitTimeout(goFairWait))}
	for range javas {
		w.javas = append(w.javas, Start(t, peerArgs(rdb, "wait", "fair", name, "--fairwait", "0", "--await-stdin")...))
	}
	for _, p := range w.javas {
		p.Await(t, "ready", 30*time.Second)
	}
	w.holder = w.c.NewFairMutex(name)
	if err := w.holder.LockWithLease(w.ctx, lease); err != nil {
		t.Fatal(err)
	}
	return w
}

// A Redisson waiter chained behind a Go waiter with a shorter wait timeout
// than the Go side's (a tryLock's wait, which Redisson uses in place of
// fairLockWaitTimeout; here the peer's --fairwait, 0) keeps its place when
// the Go waiter is granted the lock. Redisson's grant rule moves every
// deadline a (Go) wait timeout earlier, which would put the Java waiter's
// where the first holder's lease was to end; from then on, the next
// Redisson script (its own when it wakes, or another Java client's) would
// purge it without a word, to queue again at the tail if it is the one
// that runs. The grant keeps the new head's deadline a wait timeout away
// instead, and the Java waiter is granted next.
func TestFairShortWaitJavaWaiterKeepsItsPlace(t *testing.T) {
	t.Parallel()
	const name = "fair-short-wait"
	w := newShortWait(t, name, 2, 3*time.Second)
	ctx, rdb, c, holder, java, other := w.ctx, w.rdb, w.c, w.holder, w.javas[0], w.javas[1]
	goWaiter := c.NewFairMutex(name)
	granted := make(chan error, 1)
	go func() { granted <- goWaiter.Lock(ctx) }()
	awaitQueueLen(t, rdb, name, 1)
	java.Go(t)
	javaOwner, _ := java.Await(t, "wait-start", 10*time.Second)["owner"].(string)
	awaitQueueLen(t, rdb, name, 2)
	if err := holder.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-granted; err != nil {
		t.Fatal(err)
	}
	if left := deadlineLeft(ctx, rdb, name, javaOwner); left < goFairWait/2 {
		t.Fatalf("the Java waiter's deadline is %v away after the Go grant, want about a wait timeout (%v)", left, goFairWait)
	}
	other.Go(t)
	other.Await(t, "wait-start", 10*time.Second)
	awaitQueueLen(t, rdb, name, 2)
	if err := goWaiter.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	first := java.Await(t, "acquired", 10*time.Second).Float("t")
	if second := other.Await(t, "acquired", 10*time.Second).Float("t"); second < first {
		t.Fatalf("the Java waiter queued second was granted %.0f ms before the first", first-second)
	}
}

// A Redisson waiter chained behind a Go waiter with a shorter wait timeout
// keeps a live deadline when the Go waiter gives up at the head while the
// lock is held: leaving moves the deadlines behind a (Go) wait timeout
// earlier, as Redisson's rule has it, and the new head's then stays a wait
// timeout away (see TestFairShortWaitJavaWaiterKeepsItsPlace).
func TestFairShortWaitJavaWaiterOutlivesAGoLeaving(t *testing.T) {
	t.Parallel()
	const name = "fair-short-wait-leave"
	w := newShortWait(t, name, 1, 5*time.Second)
	ctx, rdb, c, holder, java := w.ctx, w.rdb, w.c, w.holder, w.javas[0]
	leaving, cancel := context.WithCancel(ctx)
	gaveUp := make(chan error, 1)
	go func() { gaveUp <- c.NewFairMutex(name).Lock(leaving) }()
	awaitQueueLen(t, rdb, name, 1)
	java.Go(t)
	javaOwner, _ := java.Await(t, "wait-start", 10*time.Second)["owner"].(string)
	awaitQueueLen(t, rdb, name, 2)
	cancel()
	if err := <-gaveUp; err == nil {
		t.Fatal("the Go waiter got the lock it gave up")
	}
	awaitQueueLen(t, rdb, name, 1)
	if left := deadlineLeft(ctx, rdb, name, javaOwner); left < goFairWait/2 {
		t.Fatalf("the Java waiter's deadline is %v away after the Go waiter ahead left, want about a wait timeout (%v)", left, goFairWait)
	}
	if err := holder.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	java.Await(t, "acquired", 10*time.Second)
}

// Redisson waiters queued behind a Go holder whose watchdog keeps the lock
// past their wait timeout keep their order: each renewal keeps the head's
// deadline ahead. Redisson's deadlines never move with time; the head's
// would pass, and its own script would purge it when it next woke (it
// sleeps the lock's TTL), to queue again behind the waiter after it.
func TestFairJavaWaitersKeepTheirOrderThroughALongGoHold(t *testing.T) {
	t.Parallel()
	rdb, _ := setup(t)
	const wait = time.Second
	c := lockkit.NewClient(t, rdb, rlock.WithWatchdogTimeout(time.Second), rlock.WithFairWaitTimeout(wait))
	ctx := testkit.Ctx(t, 2*time.Minute)
	const name = "fair-long-hold"
	var javas []*Peer
	for range 2 {
		p := Start(t, peerArgs(rdb, "wait", "fair", name, "--fairwait", "1000", "--watchdog", "1000", "--await-stdin")...)
		javas = append(javas, p)
	}
	for _, p := range javas {
		p.Await(t, "ready", 30*time.Second)
	}
	holder := c.NewFairMutex(name)
	if err := holder.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	for i, p := range javas {
		p.Go(t)
		p.Await(t, "wait-start", 10*time.Second)
		awaitQueueLen(t, rdb, name, int64(i+1))
	}
	// The long hold: four wait timeouts, past the first Java waiter's
	// deadline (a lease and a wait timeout after its queueing).
	time.Sleep(4 * wait)
	if err := holder.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	first := javas[0].Await(t, "acquired", 10*time.Second).Float("t")
	if second := javas[1].Await(t, "acquired", 10*time.Second).Float("t"); second < first {
		t.Fatalf("the Java waiter queued second was granted %.0f ms before the first", first-second)
	}
}
