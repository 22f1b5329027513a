package rlock

import (
	"context"
	"testing"
	"time"

	"github.com/relock-go/relock/internal/keys"
	"github.com/relock-go/relock/test/redistest"
)

// foreignListener subscribes a connection of its own to the channel of
// the lock name, as a Redisson client's waiter does (with no presence
// marker), and returns it once the server confirmed it.
func foreignListener(t *testing.T, c *Client, name string) {
	t.Helper()
	ctx := ctxT(t)
	sub := c.rdb.Subscribe(ctx, keys.Channel(name))
	t.Cleanup(func() { _ = sub.Close() })
	if _, err := sub.Receive(ctx); err != nil {
		t.Fatal(err)
	}
}

// foreignMix is a Client with a holder of the lock name and waiters
// waiters asleep, and a foreign listener on the lock's channel.
func foreignMix(t *testing.T, name string, waiters int) (*Client, *Mutex, <-chan *Mutex) {
	t.Helper()
	c := newClient(t, newRedis(t))
	foreignListener(t, c, name)
	holder, acquired := heldWithWaiters(t, c, name, waiters)
	return c, holder, acquired
}

// releases unlocks holder, and then each next holder, n times in all, and
// returns the last holder and how many of the releases were published.
func releases(t *testing.T, c *Client, holder *Mutex, acquired <-chan *Mutex, n int) (*Mutex, int64) {
	t.Helper()
	ctx := ctxT(t)
	publishes := func() int64 {
		calls, err := redistest.CommandCalls(ctx, c.rdb)
		if err != nil {
			t.Fatal(err)
		}
		return calls["publish"]
	}
	before := publishes()
	for range n {
		if err := holder.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
		holder = <-acquired
		eventually(t, 5*time.Second, "the others asleep again", func() bool {
			return hubOf(c).Stats().Sleeping == hubOf(c).Stats().Subscriptions
		})
	}
	return holder, publishes() - before
}

// A Client whose waiters share a lock's channel with a client that is not
// relock's (a Redisson waiter) learns of it from its first release passed
// on, and from then on publishes every release, so that the other
// client's waiter has its turn, instead of passing the next ones on to its
// own waiters.
func TestForeignListenerStopsHandOffsAtOnce(t *testing.T) {
	const waiters = 6
	c, holder, acquired := foreignMix(t, "handoff-foreign", waiters)
	holder, published := releases(t, c, holder, acquired, 4)
	if published < 3 {
		t.Fatalf("4 releases with a foreign waiter listening published %d, want all but the first (which counted it)", published)
	}
	holder, _ = releases(t, c, holder, acquired, waiters-4)
	if err := holder.Unlock(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// A foreign listener that never takes the lock (it is not waiting, or
// its client is too slow to) stops taking turns once it came too late at
// the longest step-aside several times in a row: the Client passes
// releases on to its own waiters again, so that such a listener costs it
// a few step-asides, not one per acquisition.
func TestPassiveForeignListenerStopsTakingTurns(t *testing.T) {
	const waiters = 40
	c, holder, acquired := foreignMix(t, "handoff-passive", waiters)
	// The first passed on, then stepping aside for 4, 8, 16, 32 ms and 8
	// times 64 ms, each time in vain, then passed on again (maxKept in a
	// row): 14 or 15 published.
	holder, published := releases(t, c, holder, acquired, waiters)
	if published > 16 {
		t.Fatalf("%d releases with a passive foreign listener published %d, want the step-asides and one in %d at most", waiters, published, maxKept)
	}
	if err := holder.Unlock(context.Background()); err != nil {
		t.Fatal(err)
	}
}
