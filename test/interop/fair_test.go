package interop

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/internal/keys"
	"github.com/relock-go/relock/queue"
	"github.com/relock-go/relock/rlock"
	"github.com/relock-go/relock/test/testkit"
)

// awaitQueueLen waits until the fair lock's queue holds n waiters.
func awaitQueueLen(t *testing.T, rdb *redis.Client, name string, n int64) {
	t.Helper()
	testkit.Eventually(t, 30*time.Second, fmt.Sprintf("%d waiters queued", n), func() bool {
		return rdb.LLen(context.Background(), keys.Queue(name)).Val() == n
	})
}

// grant is one waiter's acquisition, on the host clock.
type grant struct {
	who string
	at  float64
}

// Go and Java fair waiters, queued alternately while a Go owner holds the
// lock, each side with its default settings, are granted the lock in
// arrival order, and none waits for a timeout.
func TestFairOrderMixedWithDefaults(t *testing.T) {
	t.Parallel()
	rdb, c := setup(t)
	ctx := testkit.Ctx(t, 2*time.Minute)
	const name = "fair-mixed"
	holder := c.NewFairMutex(name)
	if err := holder.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var grants []grant
	var arrivals []string
	var javas []*Peer
	var wg sync.WaitGroup
	for i := range 6 {
		who := fmt.Sprintf("%d:", i+1)
		if i%2 == 0 {
			who += "java"
			p := Start(t, peerArgs(rdb, "wait", "fair", name)...)
			p.Await(t, "wait-start", 30*time.Second)
			javas = append(javas, p)
		} else {
			who += "go"
			f := c.NewFairMutex(name)
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := f.Lock(ctx); err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				grants = append(grants, grant{who, Millis(time.Now())})
				mu.Unlock()
				time.Sleep(5 * time.Millisecond) // the critical section
				if err := f.Unlock(ctx); err != nil {
					t.Error(err)
				}
			}()
		}
		arrivals = append(arrivals, who)
		awaitQueueLen(t, rdb, name, int64(i+1))
	}
	released := time.Now()
	if err := holder.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	for i, p := range javas {
		got := p.Await(t, "acquired", time.Minute)
		grants = append(grants, grant{fmt.Sprintf("%d:java", 2*i+1), got.Float("t")})
	}
	sort.Slice(grants, func(i, j int) bool { return grants[i].at < grants[j].at })
	var order []string
	for _, g := range grants {
		order = append(order, g.who)
	}
	took := time.Since(released)
	t.Logf("grants %v in %v", order, took)
	if !slices.Equal(order, arrivals) {
		t.Fatalf("grants %v, arrivals %v", order, arrivals)
	}
	if took > 10*time.Second {
		t.Fatalf("six hand-offs took %v: someone waited for a timeout", took)
	}
}

// Java and Go fair owners update one counter under the lock: it comes out
// exact and never had two owners inside.
func TestFairExclusionMixed(t *testing.T) {
	t.Parallel()
	rdb, c := setup(t)
	mixedWorkers(t, rdb, "fair", "fair-counter", func() (lock, unlock func(context.Context) error) {
		f := c.NewFairMutex("fair-counter")
		return f.Lock, f.Unlock
	})
}

// A Java fair holder's unlock wakes a Go waiter, and a Go holder's unlock
// a Java waiter, by pub/sub on the waiter's own channel.
func TestFairWakeUpBothWays(t *testing.T) {
	t.Parallel()
	rdb, c := setup(t)
	ctx := testkit.Ctx(t, time.Minute)
	java := Start(t, peerArgs(rdb, "hold", "fair", "fair-wake", "--hold", "100", "--waitsubs", "1")...)
	java.Await(t, "locked", 30*time.Second)
	waiter := c.NewFairMutex("fair-wake")
	if err := waiter.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	acquired := time.Now()
	unlocked := java.Await(t, "unlocked", 30*time.Second)
	lat := Millis(acquired) - unlocked.Float("t_start")
	checkWakeUp(t, "Java fair unlock -> Go waiter", lat)

	javaWaiter := Start(t, peerArgs(rdb, "wait", "fair", "fair-wake")...)
	javaWaiter.Await(t, "wait-start", 30*time.Second)
	awaitQueueLen(t, rdb, "fair-wake", 1)
	released := time.Now()
	if err := waiter.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	got := javaWaiter.Await(t, "acquired", 30*time.Second)
	lat = got.Float("t") - Millis(released)
	checkWakeUp(t, "Go fair unlock -> Java waiter", lat)
}

// A Go waiter that died ahead of a Java waiter (queued, no longer
// listening) is evicted on its turn: the Java waiter gets the lock at once,
// not after the 5-minute wait timeout.
func TestFairJavaWaiterBehindDeadGoWaiter(t *testing.T) {
	t.Parallel()
	rdb, c := setup(t)
	ctx := testkit.Ctx(t, time.Minute)
	const name = "fair-dead-go"
	holder := c.NewFairMutex(name)
	if err := holder.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	dead := queue.New(rdb, name, rlock.DefaultFairWaitTimeout, func() string { return "publish" }).Place("dead-go:1")
	if _, err := dead.Attempt(ctx, rdb, time.Minute, 0); err != nil {
		t.Fatal(err)
	}
	java := Start(t, peerArgs(rdb, "wait", "fair", name)...)
	java.Await(t, "wait-start", 30*time.Second)
	awaitQueueLen(t, rdb, name, 2)
	released := time.Now()
	if err := holder.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	got := java.Await(t, "acquired", 30*time.Second)
	lat := got.Float("t") - Millis(released)
	t.Logf("Java waiter behind a dead Go waiter: granted %.2f ms after the release", lat)
	if lat > 5000 {
		t.Fatalf("Java waiter got the lock %.0f ms after the release", lat)
	}
}

// A Java waiter that died ahead of a Go waiter (its process killed) is
// evicted on its turn: the Go waiter gets the lock at once.
func TestFairGoWaiterBehindDeadJavaWaiter(t *testing.T) {
	t.Parallel()
	rdb, c := setup(t)
	ctx := testkit.Ctx(t, time.Minute)
	const name = "fair-dead-java"
	holder := c.NewFairMutex(name)
	if err := holder.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	java := Start(t, peerArgs(rdb, "wait", "fair", name)...)
	java.Await(t, "wait-start", 30*time.Second)
	awaitQueueLen(t, rdb, name, 1)
	java.Kill(t)
	channel := keys.WaiterChannel(name, rdb.LIndex(ctx, keys.Queue(name), 0).Val())
	testkit.Eventually(t, 10*time.Second, "the dead Java waiter's subscription gone", func() bool {
		return rdb.PubSubNumSub(ctx, channel).Val()[channel] == 0
	})
	waiter := c.NewFairMutex(name)
	got := make(chan error, 1)
	go func() { got <- waiter.Lock(ctx) }()
	awaitQueueLen(t, rdb, name, 2)
	released := time.Now()
	if err := holder.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-got:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the Go waiter behind a dead Java waiter was not granted")
	}
	t.Logf("Go waiter behind a dead Java waiter: granted %v after the release", time.Since(released))
	if err := waiter.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
}
