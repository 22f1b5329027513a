package interop

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/internal/keys"
	"github.com/relock-go/relock/rlock"
	"github.com/relock-go/relock/test/faultproxy"
	"github.com/relock-go/relock/test/testkit"
)

// linkedPeer is a Java fair waiter, started and warmed up but not yet
// waiting (--await-stdin), whose connections to Redis all go through its
// own fault proxy.
type linkedPeer struct {
	*Peer
	proxy *faultproxy.Proxy
	name  string
}

// startLinkedWaiter starts a Java fair waiter on the lock name of rdb's
// server, behind a proxy of its own, and returns it once it is ready:
// JVM start and warm-up are out of the trial that follows.
func startLinkedWaiter(t testing.TB, rdb *redis.Client, name string) linkedPeer {
	t.Helper()
	p := testkit.StartProxy(t, rdb.Options().Addr)
	w := linkedPeer{Start(t, "wait", "--addr", p.Addr(), "--name", name, "--kind", "fair", "--await-stdin"), p, name}
	w.Await(t, "ready", time.Minute)
	return w
}

// linkedTrials runs n fair trials, five at once (runTrials), trial i with
// a Java waiter of its own on the lock prefix-i.
func linkedTrials(t *testing.T, rdb *redis.Client, prefix string, n int, trial func(t testing.TB, p linkedPeer)) {
	t.Helper()
	runTrials(t, n, 5, func(t testing.TB, i int) linkedPeer {
		return startLinkedWaiter(t, rdb, fmt.Sprintf("%s-%d", prefix, i))
	}, func(t testing.TB, _ int, p linkedPeer) { trial(t, p) })
}

// queuedAtLeast waits until the fair lock's queue holds at least n waiters
// and returns it.
func queuedAtLeast(t testing.TB, rdb *redis.Client, name string, n int) []string {
	t.Helper()
	var q []string
	testkit.Eventually(t, 30*time.Second, fmt.Sprintf("%d waiters queued on %s", n, name), func() bool {
		q = rdb.LRange(context.Background(), keys.Queue(name), 0, -1).Val()
		return len(q) >= n
	})
	return q
}

// fairTrial holds the fair lock p.name from Go, lets the Java waiter p
// queue, then a Go waiter behind it; before (after both queued) runs
// first, and then the Go holder releases. It returns whether the Java
// waiter got the lock before the Go waiter, and how long after the
// release the Go waiter got it.
func fairTrial(t testing.TB, c *rlock.Client, rdb *redis.Client, p linkedPeer, before func(javaOwner string)) (javaFirst bool, goWait time.Duration) {
	t.Helper()
	ctx := testkit.Ctx(t, time.Minute)
	holder := c.NewFairMutex(p.name)
	if err := holder.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	p.Go(t)
	java := queuedAtLeast(t, rdb, p.name, 1)[0]
	goWaiter := c.NewFairMutex(p.name)
	gotGo := make(chan time.Time, 1)
	go func() {
		if err := goWaiter.Lock(ctx); err != nil {
			t.Error(err)
			close(gotGo)
			return
		}
		gotGo <- time.Now()
		_ = goWaiter.Unlock(ctx)
	}()
	queuedAtLeast(t, rdb, p.name, 2)
	before(java)
	released := time.Now()
	if err := holder.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	goAt, ok := <-gotGo
	if !ok {
		t.FailNow()
	}
	got := p.Await(t, "acquired", time.Minute)
	return got.Float("t") < Millis(goAt), goAt.Sub(released)
}

// A Redisson fair waiter that queued ahead of a Go waiter, but whose
// subscription has not reached Redis when the Go holder releases (it
// subscribes after its queueing script returns, a round trip later over a
// 50 ms link), keeps its turn: it is granted first every time.
func TestFairLateSubscribingJavaHeadKeepsItsTurn(t *testing.T) {
	t.Parallel()
	rdb, c := setup(t)
	const trials = 20
	var first, unheard atomic.Int32
	linkedTrials(t, rdb, "fair-late", trials, func(t testing.TB, p linkedPeer) {
		p.proxy.SetLatency(50 * time.Millisecond)
		javaFirst, _ := fairTrial(t, c, rdb, p, func(java string) {
			if testkit.Subscribers(context.Background(), rdb, keys.WaiterChannel(p.name, java)) == 0 {
				unheard.Add(1)
			}
		})
		if javaFirst {
			first.Add(1)
		}
	})
	t.Logf("Java head granted first in %d/%d trials; its subscription had not arrived at the release in %d", first.Load(), trials, unheard.Load())
	if first.Load() != trials {
		t.Fatalf("the late-subscribing Java head lost its turn in %d of %d trials", trials-first.Load(), trials)
	}
	if unheard.Load() < trials/2 {
		t.Fatalf("only %d of %d trials released before the Java subscription arrived: the test did not test the late subscriber", unheard.Load(), trials)
	}
}

// A Redisson fair waiter at the head whose connections were just reset
// (its pub/sub connection is reconnecting when the Go holder releases)
// keeps its turn ahead of the Go waiter behind it, every time.
func TestFairJavaHeadKeepsItsTurnOverAReconnect(t *testing.T) {
	t.Parallel()
	rdb, c := setup(t)
	const trials = 20
	var first atomic.Int32
	linkedTrials(t, rdb, "fair-reconnect", trials, func(t testing.TB, p linkedPeer) {
		javaFirst, goWait := fairTrial(t, c, rdb, p, func(java string) {
			ch := keys.WaiterChannel(p.name, java)
			testkit.Eventually(t, 30*time.Second, "the Java waiter subscribed", func() bool { return testkit.Subscribers(context.Background(), rdb, ch) == 1 })
			// Redisson retries its acquisition right after subscribing,
			// and fails lock() (a response timeout; it does not resend
			// a script) if the reset cuts that command off: that is not
			// the case under test, and nothing in Redis tells when the
			// retry is done, so it is given time to finish.
			time.Sleep(300 * time.Millisecond)
			// Cut its connections and keep it from reconnecting until
			// Redis has dropped its subscription: the release finds it
			// unheard.
			p.proxy.RefuseNew(true)
			p.proxy.ResetAll()
			testkit.Eventually(t, 10*time.Second, "the Java subscription dropped", func() bool { return testkit.Subscribers(context.Background(), rdb, ch) == 0 })
			time.AfterFunc(50*time.Millisecond, func() { p.proxy.RefuseNew(false) })
		})
		t.Logf("Java head first: %v; Go waiter granted %v after the release", javaFirst, goWait)
		if javaFirst {
			first.Add(1)
		}
	})
	t.Logf("Java head granted first after a reconnect in %d/%d trials", first.Load(), trials)
	if first.Load() != trials {
		t.Fatalf("the reconnecting Java head lost its turn in %d of %d trials", trials-first.Load(), trials)
	}
}

// A Redisson fair waiter that queued and never subscribed (its link went
// dead at once) holds up the Go waiter behind it for a few seconds (the
// grace a late subscriber gets), not for its 5-minute deadline; it is
// evicted, and the Go waiter granted.
func TestFairDeadJavaHeadCostsSeconds(t *testing.T) {
	t.Parallel()
	rdb, c := setup(t)
	p := startLinkedWaiter(t, rdb, "fair-dead")
	p.proxy.SetLatency(50 * time.Millisecond)
	ctx := testkit.Ctx(t, time.Minute)
	holder := c.NewFairMutex(p.name)
	if err := holder.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	// Its SUBSCRIBE never reaches Redis, whenever it is sent, and its link
	// goes dead once it has queued.
	p.proxy.DropRequests("SUBSCRIBE")
	p.Go(t)
	java := queuedAtLeast(t, rdb, p.name, 1)[0]
	p.proxy.BlackHole(true)
	if n := testkit.Subscribers(context.Background(), rdb, keys.WaiterChannel(p.name, java)); n != 0 {
		t.Fatalf("the Java waiter's channel has %d subscribers, want none: its SUBSCRIBE was to be dropped", n)
	}
	goWaiter := c.NewFairMutex(p.name)
	got := make(chan error, 1)
	go func() { got <- goWaiter.Lock(ctx) }()
	queuedAtLeast(t, rdb, p.name, 2)
	released := time.Now()
	if err := holder.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-got; err != nil {
		t.Fatal(err)
	}
	took := time.Since(released)
	t.Logf("Go waiter behind a dead Java head: granted %v after the release", took)
	if took > 10*time.Second {
		t.Fatalf("a dead Java head held up the line %v", took)
	}
	if q := rdb.LRange(ctx, keys.Queue(p.name), 0, -1).Val(); len(q) != 0 {
		t.Fatalf("queue %v after the grant, want the dead head evicted", q)
	}
}

// Every payload that relock publishes on a channel of Redisson's layout is
// a number, as Redisson's codec reads them: a Java plain-lock waiter on
// the name of a fair lock that Go owners hand over logs no decoder error
// (Start checks every peer's log), and is woken by the plain Mutex that
// takes the lock after them.
func TestFairLockPublishesOnlyNumbersOnRedissonChannels(t *testing.T) {
	t.Parallel()
	rdb, c := setup(t)
	ctx := testkit.Ctx(t, time.Minute)
	const name = "fair-numbers"
	ps := rdb.PSubscribe(ctx, "redisson_*")
	defer ps.Close()
	if _, err := ps.Receive(ctx); err != nil {
		t.Fatal(err)
	}
	holder := c.NewFairMutex(name)
	if err := holder.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	java := Start(t, peerArgs(rdb, "wait", "lock", name)...)
	java.Await(t, "wait-start", 30*time.Second)
	testkit.Eventually(t, 30*time.Second, "the Java waiter subscribed", func() bool { return testkit.Subscribers(context.Background(), rdb, keys.Channel(name)) > 0 })
	done := make(chan struct{})
	for i := range 3 {
		go func() {
			defer func() { done <- struct{}{} }()
			f := c.NewFairMutex(name)
			if err := f.Lock(ctx); err != nil {
				t.Error(err)
				return
			}
			time.Sleep(time.Duration(i) * time.Millisecond) // the critical section
			if err := f.Unlock(ctx); err != nil {
				t.Error(err)
			}
		}()
	}
	queuedAtLeast(t, rdb, name, 3)
	if err := holder.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		<-done
	}
	m := c.NewMutex(name)
	if err := m.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	if err := m.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	java.Await(t, "acquired", 30*time.Second)
	for {
		m, err := ps.ReceiveTimeout(ctx, 500*time.Millisecond)
		if err != nil {
			break
		}
		if msg, ok := m.(*redis.Message); ok {
			if _, err := strconv.ParseInt(msg.Payload, 10, 64); err != nil && strings.HasPrefix(msg.Channel, "redisson_") {
				t.Errorf("%q published on %s, not a number", msg.Payload, msg.Channel)
			}
		}
	}
}
