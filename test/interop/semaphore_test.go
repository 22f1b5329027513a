package interop

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/internal/keys"
	"github.com/relock-go/relock/rlock"
	"github.com/relock-go/relock/test/testkit"
)

// overlap counts the holders inside a critical section as the peer's
// worker does: KEY:ov now, and its maximum in KEY:ovmax.
var overlap = redis.NewScript(`
local v = redis.call('incr', KEYS[1])
if v > tonumber(redis.call('get', KEYS[2]) or 0) then redis.call('set', KEYS[2], v) end
return v`)

// subscribed waits until channel has a subscriber (the other side's
// waiter listens).
func subscribed(t *testing.T, rdb *redis.Client, channel string) {
	t.Helper()
	testkit.Eventually(t, 30*time.Second, "a subscriber of "+channel, func() bool {
		return rdb.PubSubNumSub(context.Background(), channel).Val()[channel] > 0
	})
}

// Go and Java workers share one semaphore of 4 permits over 400
// acquisitions: never more than 4 inside, and every permit back at the end.
func TestMixedSemaphoreFourPermits(t *testing.T) {
	t.Parallel()
	rdb, c := setup(t)
	ctx := testkit.Ctx(t, 2*time.Minute)
	const name, counter = "sem", "semctr"
	s := c.NewSemaphore(name)
	if ok, err := s.TrySetPermits(ctx, 4); !ok || err != nil {
		t.Fatalf("TrySetPermits = %v, %v", ok, err)
	}
	java := Start(t, peerArgs(rdb, "worker", "semaphore", name, "--workers", "4", "--iters", "50", "--sleep", "2", "--counter", counter)...)
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 50 {
				if err := s.Acquire(ctx, 1); err != nil {
					errs <- err
					return
				}
				overlap.Run(ctx, rdb, []string{counter + ":ov", counter + ":ovmax"})
				time.Sleep(2 * time.Millisecond) // the work inside
				rdb.Decr(ctx, counter+":ov")
				if err := s.Release(ctx, 1); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	sum := java.Await(t, "summary", time.Minute)
	if sum.Float("acquisitions") != 200 {
		t.Fatalf("Java summary %v: want 200 acquisitions", sum)
	}
	if m, _ := rdb.Get(ctx, counter+":ovmax").Int(); m > 4 || m < 1 {
		t.Fatalf("%d holders at once; want at most 4", m)
	}
	if n, err := s.AvailablePermits(ctx); n != 4 || err != nil {
		t.Fatalf("%d permits at the end (%v); want the 4", n, err)
	}
}

// A Java release wakes a Go waiter by its message (the Go waiter's own
// bound, the 30s watchdog timeout, is beyond the test's wait).
func TestJavaSemaphoreReleaseWakesGo(t *testing.T) {
	t.Parallel()
	rdb, c := setup(t)
	ctx := testkit.Ctx(t, time.Minute)
	java := Start(t, peerArgs(rdb, "hold", "semaphore", "semw", "--permits", "1", "--hold", "100", "--waitsubs", "1")...)
	java.Await(t, "locked", 30*time.Second)
	wctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	if err := c.NewSemaphore("semw").Acquire(wctx, 1); err != nil {
		t.Fatalf("Go Acquire after the Java release: %v", err)
	}
	java.Await(t, "unlocked", 10*time.Second)
}

// A Go release wakes a Java waiter.
func TestGoSemaphoreReleaseWakesJava(t *testing.T) {
	t.Parallel()
	rdb, c := setup(t)
	ctx := testkit.Ctx(t, time.Minute)
	s := c.NewSemaphore("semj")
	if ok, err := s.TrySetPermits(ctx, 1); !ok || err != nil {
		t.Fatalf("TrySetPermits = %v, %v; want it set", ok, err)
	}
	if err := s.Acquire(ctx, 1); err != nil {
		t.Fatal(err)
	}
	java := Start(t, peerArgs(rdb, "wait", "semaphore", "semj", "--warmup=false")...)
	java.Await(t, "wait-start", 30*time.Second)
	subscribed(t, rdb, keys.SemaphoreChannel("semj"))
	if err := s.Release(ctx, 1); err != nil {
		t.Fatal(err)
	}
	java.Await(t, "acquired", 20*time.Second)
}

// A Go permit that expires comes back to a Java waiter, and a Java one to
// a Go waiter; the Go holder learns of its loss.
func TestPermitExpirySeenByBoth(t *testing.T) {
	t.Parallel()
	rdb, c := setup(t)
	ctx := testkit.Ctx(t, time.Minute)
	s := c.NewPermitExpirableSemaphore("pes")
	if ok, err := s.TrySetPermits(ctx, 1); !ok || err != nil {
		t.Fatalf("TrySetPermits = %v, %v; want it set", ok, err)
	}
	p, err := s.Acquire(ctx, 700*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	java := Start(t, peerArgs(rdb, "wait", "pesemaphore", "pes", "--warmup=false", "--lease", "600")...)
	java.Await(t, "wait-start", 30*time.Second)
	got := java.Await(t, "acquired", 30*time.Second)
	if ids, _ := got["permit_ids"].([]any); len(ids) != 1 {
		t.Fatalf("Java acquired %v", got)
	}
	<-p.Lost()
	if err := s.ReleasePermit(ctx, p); !errors.Is(err, rlock.ErrNotHeld) {
		t.Fatalf("release of the expired Go permit: %v", err)
	}
	// Java holds a permit with a 500ms lease and never releases it.
	holder := Start(t, peerArgs(rdb, "hold", "pesemaphore", "pes2", "--permits", "1", "--lease", "500", "--hold", "60s")...)
	locked := holder.Await(t, "locked", 30*time.Second)
	ids, _ := locked["permit_ids"].([]any)
	if len(ids) != 1 || rdb.ZCard(ctx, keys.PermitTimeouts("pes2")).Val() != 1 {
		t.Fatalf("Java's permit: %v", locked)
	}
	q, err := c.NewPermitExpirableSemaphore("pes2").TryAcquire(ctx, 20*time.Second, 0)
	if q == nil || err != nil {
		t.Fatalf("Go acquisition after the Java permit expired: %v, %v", q, err)
	}
	if err := c.NewPermitExpirableSemaphore("pes2").Release(ctx, ids[0].(string)); !errors.Is(err, rlock.ErrNotHeld) {
		t.Fatalf("Go release of the expired Java permit: %v", err)
	}
}

// A latch counted down by Java releases a Go Await, and one counted down
// by Go a Java await.
func TestLatchAwaitedInBoth(t *testing.T) {
	t.Parallel()
	rdb, c := setup(t)
	ctx := testkit.Ctx(t, time.Minute)
	java := Start(t, peerArgs(rdb, "hold", "latch", "lat", "--count", "2", "--hold", "100", "--waitsubs", "1")...)
	java.Await(t, "locked", 30*time.Second)
	if n, err := c.NewCountDownLatch("lat").Count(ctx); n != 2 || err != nil {
		t.Fatalf("Go sees count %d, %v; want Java's 2", n, err)
	}
	wctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	if err := c.NewCountDownLatch("lat").Await(wctx); err != nil {
		t.Fatalf("Go Await on a Java latch: %v", err)
	}
	l := c.NewCountDownLatch("lat2")
	if ok, err := l.TrySetCount(ctx, 1); !ok || err != nil {
		t.Fatalf("TrySetCount = %v, %v", ok, err)
	}
	waiter := Start(t, peerArgs(rdb, "wait", "latch", "lat2", "--warmup=false")...)
	waiter.Await(t, "wait-start", 30*time.Second)
	subscribed(t, rdb, keys.LatchChannel("lat2"))
	if err := l.CountDown(ctx); err != nil {
		t.Fatal(err)
	}
	waiter.Await(t, "acquired", 20*time.Second)
	if v := rdb.Exists(ctx, "lat2").Val(); v != 0 {
		t.Fatalf("the latch's key is left: %d", v)
	}
}
