package failover

import (
	"context"
	"testing"
	"time"

	"github.com/relock-go/relock/internal/keys"
	"github.com/relock-go/relock/rlock"
	"github.com/relock-go/relock/test/testkit"
	"github.com/relock-go/relock/test/testkit/lockkit"
)

// owner is what these tests need of every kind of lock handle.
type owner interface {
	Lock(ctx context.Context) error
	Unlock(ctx context.Context) error
	Lost() <-chan struct{}
	Owner() string
}

// fenced adapts a FencedMutex to owner, dropping its tokens.
type fenced struct{ *rlock.FencedMutex }

func (f fenced) Lock(ctx context.Context) error {
	_, err := f.FencedMutex.Lock(ctx)
	return err
}

// kinds are the lock kinds, each with the channel on which a waiter of
// name, owned by waiter, is woken.
var kinds = []struct {
	name    string
	new     func(c *rlock.Client, name string) owner
	channel func(name, waiter string) string
}{
	{"Mutex", func(c *rlock.Client, n string) owner { return c.NewMutex(n) }, func(n, _ string) string { return keys.Channel(n) }},
	{"FairMutex", func(c *rlock.Client, n string) owner { return c.NewFairMutex(n) }, keys.WaiterChannel},
	{"FencedMutex", func(c *rlock.Client, n string) owner { return fenced{c.NewFencedMutex(n)} }, func(n, _ string) string { return keys.Channel(n) }},
}

// A waiter in one process sleeps on the lock's channel on the master that
// the failover client found through Sentinel, and the holder's Unlock, in
// another process, wakes it: it takes the lock long before the lease
// (the default 30 s) could have expired.
func TestLocksWorkThroughFailoverClient(t *testing.T) {
	t.Parallel()
	s := startGroup(t, 1)
	ctx := testkit.Ctx(t, within)
	holders := lockkit.NewClient(t, s.FailoverClient(t))
	waiters := lockkit.NewClient(t, s.FailoverClient(t))
	view := s.FailoverClient(t)

	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			name := "through-failover-client:" + k.name
			holder, waiter := k.new(holders, name), k.new(waiters, name)
			if err := holder.Lock(ctx); err != nil {
				t.Fatalf("holder Lock: %v", err)
			}
			got := make(chan error, 1)
			go func() { got <- waiter.Lock(ctx) }()

			channel := k.channel(name, waiter.Owner())
			testkit.Eventually(t, 10*time.Second, "waiter subscribed to "+channel, func() bool {
				return testkit.Subscribers(ctx, view, channel) == 1
			})
			select {
			case err := <-got:
				t.Fatalf("waiter Lock returned %v while the lock was held", err)
			default:
			}

			released := time.Now()
			if err := holder.Unlock(ctx); err != nil {
				t.Fatalf("holder Unlock: %v", err)
			}
			select {
			case err := <-got:
				if err != nil {
					t.Fatalf("waiter Lock: %v", err)
				}
				t.Logf("waiter took the lock %v after the release", time.Since(released).Round(time.Microsecond))
			case <-time.After(5 * time.Second):
				t.Fatal("waiter not woken within 5s of the release (the lease is 30s)")
			}
			select {
			case <-waiter.Lost():
				t.Fatal("the waiter's new hold is already lost")
			default:
			}
			if err := waiter.Unlock(ctx); err != nil {
				t.Fatalf("waiter Unlock: %v", err)
			}
			testkit.Eventually(t, 10*time.Second, "waiter unsubscribed from "+channel, func() bool {
				return testkit.Subscribers(ctx, view, channel) == 0
			})
		})
	}
}
