package interop

import (
	"fmt"
	"testing"
	"time"

	"github.com/relock-go/relock/rlock"
	"github.com/relock-go/relock/test/redistest"
	"github.com/relock-go/relock/test/testkit"
	"github.com/relock-go/relock/test/testkit/lockkit"
)

// On a Redis Cluster, Go and Java share limiters spread over the three
// masters (every key of a limiter, and its channel, in its slot): each
// reads the other's rate, they draw from one budget, and a Go waiter is
// woken by a Release made through another Client.
func TestRateLimiterOnClusterSharedWithJava(t *testing.T) {
	t.Parallel()
	cluster, err := redistest.StartCluster(3, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cluster.Close() })
	rdb := cluster.Client(t)
	c, other := lockkit.NewClient(t, rdb), lockkit.NewClient(t, rdb)
	ctx := testkit.Ctx(t, 2*time.Minute)
	java := StartRateWorker(t, cluster.Addrs()[0], "--cluster", "true")
	masters := map[string]string{}
	for i := 0; len(masters) < 3 && i < 1000; i++ {
		name := fmt.Sprintf("rate-%d", i)
		if addr := cluster.MasterOf(name); masters[addr] == "" {
			masters[addr] = name
		}
	}
	if len(masters) < 3 {
		t.Fatalf("names on %d masters, want 3", len(masters))
	}
	for _, name := range masters {
		java.Send(t, "set", "--name", name, "--rate", "3", "--interval", "60000")
		java.Await(t, "set", time.Minute)
		l := c.NewRateLimiter(name)
		if r, err := l.Rate(ctx); r != (rlock.Rate{Limit: 3, Interval: time.Minute}) || err != nil {
			t.Fatalf("%s: Go's Rate after Java's setRate(3 a minute) = %+v, %v", name, r, err)
		}
		if ok, err := l.AllowN(ctx, 2); !ok || err != nil {
			t.Fatalf("%s: AllowN(2) of 3 = %v, %v", name, ok, err)
		}
		java.Send(t, "take", "--name", name, "--permits", "1")
		if java.Await(t, "take", time.Minute)["granted"] != true {
			t.Fatalf("%s: Java's tryAcquire(1) of the last refused", name)
		}
		java.Send(t, "take", "--name", name, "--permits", "1")
		if java.Await(t, "take", time.Minute)["granted"] == true {
			t.Fatalf("%s: Java's tryAcquire(1) granted over the limit", name)
		}
		done := make(chan error, 1)
		go func() { done <- l.Wait(ctx) }()
		// Listed once it listens, after its refused attempt.
		for start := time.Now(); len(c.Activity().Waiters) == 0; time.Sleep(time.Millisecond) {
			if time.Since(start) > 10*time.Second {
				t.Fatalf("%s: the Wait is not listed as waiting", name)
			}
		}
		if err := other.NewRateLimiter(name).Release(ctx, 1); err != nil {
			t.Fatal(err)
		}
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("%s: Wait: %v", name, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: a waiter not woken by a Release on the Cluster", name)
		}
	}
}
