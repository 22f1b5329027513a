package rlock

import (
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/test/redistest"
	"github.com/relock-go/relock/test/testkit"
)

func TestClusterWaiterFollowsAFailoverOfItsMaster(t *testing.T) {
	t.Parallel() // on a Cluster of its own
	for _, sharded := range []bool{true, false} {
		t.Run(fmt.Sprintf("sharded=%v", sharded), func(t *testing.T) {
			t.Parallel()
			skipUnlessSharded(t, sharded)
			c, err := redistest.StartCluster(3, 1)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = c.Close() })
			ctx := ctxT(t)
			name := fmt.Sprintf("failover-%v", sharded)
			holder := newClient(t, c.Client(t), WithShardedPubSub(sharded)).NewMutex(name)
			waiterClient := newClient(t, c.Client(t), WithShardedPubSub(sharded), WithHealthCheck(500*time.Millisecond))
			if err := holder.Lock(ctx); err != nil {
				t.Fatal(err)
			}
			got := make(chan error, 1)
			go func() {
				w := waiterClient.NewMutex(name)
				err := w.Lock(ctx)
				if err == nil {
					err = w.Unlock(ctx)
				}
				got <- err
			}()
			eventually(t, 5*time.Second, "waiter asleep", func() bool { return hubOf(waiterClient).Stats().Sleeping == 1 })

			// Promote the replica of the lock's master.
			old := c.MasterOf(name)
			var replica string
			eventually(t, 10*time.Second, "a replica of the lock's master", func() bool {
				slots, _ := c.Slots(ctx)
				for _, s := range slots {
					if len(s.Replicas) > 0 && s.Master == old {
						replica = s.Replicas[0]
					}
				}
				return replica != ""
			})
			r := redis.NewClient(&redis.Options{Addr: replica})
			defer r.Close()
			if err := r.Do(ctx, "cluster", "failover").Err(); err != nil {
				t.Fatal(err)
			}
			eventually(t, 10*time.Second, "replica promoted", func() bool { return c.MasterOf(name) == replica })

			released := time.Now()
			testkit.Eventually(t, 10*time.Second, "holder unlocks on the new master", func() bool {
				return holder.Unlock(ctx) == nil
			})
			select {
			case err := <-got:
				if err != nil {
					t.Fatal(err)
				}
				t.Logf("waiter took the lock %v after the release", time.Since(released).Round(time.Millisecond))
			case <-time.After(10 * time.Second):
				t.Fatal("waiter not woken after a failover of its master (the lease is 30s)")
			}
		})
	}
}

// With classic pub/sub on a Redis Cluster, PUBLISH counts the subscribers
// of one node only, so a release cannot tell that it woke a waiter on
// another: a hold taken after a wait is taken to have had one, and the
// releaser's next acquisition steps aside. One taken without a wait is
// not: an uncontended loop never steps aside.
func TestClusterClassicReleaseAfterAWaitCountsAsHeard(t *testing.T) {
	t.Parallel() // on a Cluster of its own
	cluster, rdb := startCluster(t)
	ctx := ctxT(t)
	stepsAside := func(c *Client, name string) bool {
		c.asides.mu.Lock()
		defer c.asides.mu.Unlock()
		_, ok := c.asides.till[name]
		return ok
	}
	for _, name := range namesOnEveryMaster(t, cluster) {
		a, b := newClient(t, rdb, WithShardedPubSub(false)), newClient(t, rdb, WithShardedPubSub(false))
		ma, mb := a.NewMutex(name), b.NewMutex(name)
		if err := ma.Lock(ctx); err != nil {
			t.Fatal(err)
		}
		mustUnlock(t, ma)
		if stepsAside(a, name) {
			t.Fatalf("%s: an uncontended release made the Client step aside", name)
		}
		// ma takes the lock after waiting for mb, then releases it while
		// mb waits.
		if err := mb.Lock(ctx); err != nil {
			t.Fatal(err)
		}
		locked := make(chan error, 1)
		go func() { locked <- ma.Lock(ctx) }()
		eventually(t, 5*time.Second, "a waiting", func() bool { return hubOf(a).Stats().Sleeping == 1 })
		mustUnlock(t, mb)
		if err := <-locked; err != nil {
			t.Fatal(err)
		}
		go func() { locked <- mb.Lock(ctx) }()
		eventually(t, 5*time.Second, "b waiting", func() bool { return hubOf(b).Stats().Sleeping == 1 })
		mustUnlock(t, ma)
		if !stepsAside(a, name) {
			t.Fatalf("%s: a release of a hold taken after a wait did not make the Client step aside", name)
		}
		if err := <-locked; err != nil {
			t.Fatal(err)
		}
		mustUnlock(t, mb)
	}
}
