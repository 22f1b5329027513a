package rlock

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// A sharded subscription connection that is replaced carries channels of
// many slots; its new connection must subscribe them again (one SSUBSCRIBE
// per slot, as Redis requires) so that releases wake the waiters, rather
// than failing again and again while they sleep out their timers, and a
// new waiter must not wait forever for its confirmation.
func TestClusterShardedWaitersOfManySlotsHearReleasesAfterAReplacement(t *testing.T) {
	t.Parallel() // on a Cluster of its own
	skipUnlessSharded(t, true)
	_, rdb := startCluster(t)
	ctx := ctxT(t)
	holder := newClient(t, rdb, WithShardedPubSub(true))
	events := newRecorder()
	waiter := newClient(t, rdb, WithShardedPubSub(true), WithObserver(events), WithHealthCheck(200*time.Millisecond))

	const n = 40 // names over many slots of every master
	var held []*Mutex
	hold := func(name string) {
		m := holder.NewMutex(name)
		if err := m.Lock(ctx); err != nil {
			t.Fatal(err)
		}
		held = append(held, m)
	}
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("resub-%d", i)
		hold(names[i])
	}
	acquired := make(chan error, n+1)
	wait := func(name string) {
		m := waiter.NewMutex(name)
		go func() {
			err := m.Lock(ctx)
			if err == nil {
				err = m.Unlock(ctx)
			}
			acquired <- err
		}()
	}
	for _, name := range names {
		wait(name)
	}
	eventually(t, 10*time.Second, "every waiter asleep after its second attempt", func() bool {
		w := waiter.Activity().Waiters
		for _, x := range w {
			if x.Attempts < 2 {
				return false
			}
		}
		return len(w) == n
	})

	var kills atomic.Int64
	err := rdb.ForEachMaster(ctx, func(ctx context.Context, c *redis.Client) error {
		k, err := c.ClientKillByFilter(ctx, "TYPE", "pubsub").Result()
		kills.Add(k)
		return err
	})
	if err != nil || kills.Load() == 0 {
		t.Fatalf("killing the pub/sub connections: %d killed, %v", kills.Load(), err)
	}
	events.await(t, EventSubscriptionReplaced, nil)

	// A waiter that comes after the replacement subscribes a new channel.
	hold("resub-late")
	wait("resub-late")

	// The waiters sleep for most of the lock's 30 s lease unless a release
	// wakes them: well within it, every one has taken and released its lock.
	for _, m := range held {
		if err := m.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
	}
	bound := time.After(10 * time.Second)
	for range held {
		select {
		case err := <-acquired:
			if err != nil {
				t.Fatalf("waiter: %v", err)
			}
		case <-bound:
			t.Fatalf("waiters not woken by the releases within 10 s of them (a lease is 30 s); replaced: %d", len(events.of(EventSubscriptionReplaced)))
		}
	}
}
