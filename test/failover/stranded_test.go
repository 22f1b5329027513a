package failover

import (
	"testing"
	"time"

	"github.com/relock-go/relock/internal/keys"
	"github.com/relock-go/relock/rlock"
	"github.com/relock-go/relock/test/testkit"
	"github.com/relock-go/relock/test/testkit/lockkit"
)

// After a planned failover, a waiter must be woken by the next release, on
// the new master, within about two health-check intervals, not when the
// lock's TTL (30 s here) runs out or when Sentinel demotes the former
// master (about 10 s later).
//
// go-redis's failover client closes the connections of its command pools
// to the former master on +switch-master, but not those of its pub/sub
// pool, and the former master keeps answering PING. The subscription
// connection's probe, published through the command pool (so on the new
// master), does not come back, and the connection is replaced.
func TestWaiterWokenByReleaseAfterPlannedFailover(t *testing.T) {
	t.Parallel()
	const healthCheck = 500 * time.Millisecond
	s := startGroup(t, 1)
	ctx := testkit.Ctx(t, within)
	holder := lockkit.NewClient(t, s.FailoverClient(t)).NewMutex("stranded")
	waiter := lockkit.NewClient(t, s.FailoverClient(t), rlock.WithHealthCheck(healthCheck)).NewMutex("stranded")
	view := s.FailoverClient(t)

	if err := holder.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	got := make(chan error, 1)
	go func() { got <- waiter.Lock(ctx) }()
	testkit.Eventually(t, 10*time.Second, "waiter subscribed", func() bool {
		return testkit.Subscribers(ctx, view, keys.Channel("stranded")) == 1
	})
	old, now, err := plannedFailover(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	// The holder's Unlock goes to the new master, once its client
	// switched; the hold was replicated long before the failover.
	released := time.Now()
	if err := holder.Unlock(ctx); err != nil {
		t.Fatalf("Unlock after the failover: %v", err)
	}
	select {
	case err := <-got:
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("waiter took the lock %v after the release", time.Since(released).Round(time.Millisecond))
	case <-time.After(2*healthCheck + 2*time.Second):
		t.Errorf("waiter not woken within two health checks of a release after the failover %s → %s; subscribers on the new master %d, on the former master %d",
			old, now, testkit.Subscribers(ctx, direct(t, now), keys.Channel("stranded")), testkit.Subscribers(ctx, direct(t, old), keys.Channel("stranded")))
		err := <-got // the lease (30 s), or the former master's demotion, ends the wait
		t.Logf("waiter took the lock %v after the release (%v)", time.Since(released).Round(time.Millisecond), err)
	}
	if err := waiter.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
}
