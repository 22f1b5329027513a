package rlock

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/internal/keys"
	"github.com/relock-go/relock/pubsub"
	"github.com/relock-go/relock/scripts"
	"github.com/relock-go/relock/test/redistest"
)

// startCluster starts a 3-master Redis Cluster for the test and returns it
// with a client of it.
func startCluster(t *testing.T) (*redistest.Cluster, *redis.ClusterClient) {
	t.Helper()
	c, err := redistest.StartCluster(3, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c, c.Client(t)
}

// namesOnEveryMaster returns lock names whose keys live on different masters.
func namesOnEveryMaster(t *testing.T, cluster *redistest.Cluster) []string {
	t.Helper()
	seen := map[string]string{}
	for i := 0; len(seen) < 3 && i < 1000; i++ {
		name := fmt.Sprintf("lock-%d", i)
		if addr := cluster.MasterOf(name); seen[addr] == "" {
			seen[addr] = name
		}
	}
	var names []string
	for _, name := range seen {
		names = append(names, name)
	}
	if len(names) < 3 {
		t.Fatalf("names on %d masters, want 3", len(names))
	}
	return append(names, "{tagged}:lock")
}

func TestClusterEveryLockKindWakesWaitersOnEverySlot(t *testing.T) {
	t.Parallel() // on a Cluster of its own
	cluster, rdb := startCluster(t)
	for _, sharded := range []bool{false, true} {
		t.Run(fmt.Sprintf("sharded=%v", sharded), func(t *testing.T) {
			t.Parallel()
			skipUnlessSharded(t, sharded)
			testClusterWakeUps(t, cluster, rdb, sharded)
		})
	}
}

// clusterHandle is one lock of any kind, as the cluster tests use it.
type clusterHandle struct {
	lock   func(context.Context) error
	unlock func(context.Context) error
	lost   func() <-chan struct{}
	owner  func() string
}

// clusterLease is the holder's lease in the cluster wake-up test: short, so
// that a hold past it proves the watchdog renews it on the lock's slot.
const clusterLease = 500 * time.Millisecond

func testClusterWakeUps(t *testing.T, cluster *redistest.Cluster, rdb *redis.ClusterClient, sharded bool) {
	ctx := ctxT(t)
	if sharded {
		auto := newClient(t, rdb)
		if auto.wire.Load() != nil {
			t.Fatal("New on a Cluster decided its pub/sub without an operation's ctx")
		}
		if w, err := auto.pubsub(ctx); err != nil || w.publish != scripts.SPublish {
			t.Fatal("a Client on Redis 7 Cluster did not choose sharded pub/sub by default")
		}
	}
	kinds := map[string]func(c *Client, name string) clusterHandle{
		"mutex": func(c *Client, name string) clusterHandle {
			m := c.NewMutex(name)
			return clusterHandle{m.Lock, m.Unlock, m.Lost, m.Owner}
		},
		"fair": func(c *Client, name string) clusterHandle {
			m := c.NewFairMutex(name)
			return clusterHandle{m.Lock, m.Unlock, m.Lost, m.Owner}
		},
		"fenced": func(c *Client, name string) clusterHandle {
			m := c.NewFencedMutex(name)
			return clusterHandle{func(ctx context.Context) error { _, err := m.Lock(ctx); return err }, m.Unlock, m.Lost, m.Owner}
		},
	}
	for kind, newHandle := range kinds {
		t.Run(kind, func(t *testing.T) {
			// Each kind has its Clients and names: the kinds run together.
			t.Parallel()
			holderClient := newClient(t, rdb, WithWatchdogTimeout(clusterLease), WithShardedPubSub(sharded))
			waiterEvents := newRecorder()
			waiterClient := newClient(t, rdb, WithShardedPubSub(sharded), WithObserver(waiterEvents))
			for _, name := range namesOnEveryMaster(t, cluster) {
				name = fmt.Sprintf("%s:%v:%s", kind, sharded, name)
				// A loaded machine may delay the watchdog past the short
				// lease: the holder's Lost tells that apart from a lock
				// that lets a waiter in, and the name is tried again.
				const tries = 5
				for try := 1; !clusterWakeUp(t, ctx, cluster, name, sharded,
					newHandle(holderClient, name), func() clusterHandle { return newHandle(waiterClient, name) }, hubOf(waiterClient), waiterEvents); try++ {
					if try == tries {
						t.Fatalf("%s: the holder lost its %v lease in each of %d tries: the watchdog does not renew it on its slot", name, clusterLease, tries)
					}
					t.Logf("%s: the holder's %v lease expired before a renewal (its Lost closed; the machine is loaded): trying again", name, clusterLease)
				}
			}
		})
	}
}

// clusterWakeUp has holder take name, a waiter of hub queue behind it,
// holds the lock past the holder's lease and releases it: the waiter must
// wait through the hold and be woken by the release's message (events, the
// waiter Client's, tell). It reports false, without failing, when the
// holder lost its lease during the hold (its Lost closed): then the waiter
// was rightly let in and nothing is proven.
func clusterWakeUp(t *testing.T, ctx context.Context, cluster *redistest.Cluster, name string, sharded bool,
	holder clusterHandle, newWaiter func() clusterHandle, hub *pubsub.Hub, events *recorder) bool {
	t.Helper()
	if err := holder.lock(ctx); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	done := make(chan error, 1)
	type acquisition struct {
		owner string
		at    time.Time
	}
	acquired := make(chan acquisition, 1)
	go func() {
		w := newWaiter()
		err := w.lock(ctx)
		if err == nil {
			acquired <- acquisition{w.owner(), time.Now()}
			err = w.unlock(ctx)
		}
		done <- err
	}()
	// The waiter sleeps, unless the holder's lease lapsed first and let
	// it in.
	asleep := time.Now().Add(5 * time.Second)
	for hub.Stats().Sleeping != 1 {
		select {
		case <-holder.lost():
			return awaitLapsedWaiter(t, name, done)
		case <-time.After(5 * time.Millisecond):
		}
		if time.Now().After(asleep) {
			t.Fatalf("%s: the waiter not asleep within 5s", name)
		}
	}
	if sharded {
		// Subscribed on the lock's own master, with SSUBSCRIBE (once the
		// channels of a waiter of an earlier try, gone, are unsubscribed).
		master := redis.NewClient(&redis.Options{Addr: cluster.MasterOf(name)})
		defer master.Close()
		eventually(t, 5*time.Second, name+": its one shard channel and its presence marker on its master", func() bool {
			chans := master.PubSubShardChannels(ctx, keys.Channel(name)+"*").Val()
			slices.Sort(chans)
			return len(chans) == 2 && chans[1] == keys.Presence(chans[0])
		})
	}
	// Held well past the holder's lease: the watchdog renews it on its
	// slot.
	select {
	case <-time.After(clusterLease + 100*time.Millisecond): // time is the subject
	case <-holder.lost():
		return awaitLapsedWaiter(t, name, done)
	case err := <-done:
		// The waiter got in: rightly only if the lease had lapsed, which
		// the holder's watchdog learns at its next renewal.
		select {
		case <-holder.lost():
			return awaitLapsedWaiter(t, name, nil)
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: waiter finished (%v) while the holder held the lock, its Lost still open", name, err)
		}
	}
	unlocked := time.Now()
	if err := holder.unlock(ctx); err != nil {
		select {
		case <-holder.lost():
			return awaitLapsedWaiter(t, name, done)
		default:
		}
		t.Fatalf("%s: %v", name, err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	case <-time.After(5 * time.Second):
		t.Fatalf("%s: waiter not woken by the unlock", name)
	}
	// The release's message woke the waiter. Only a timer that ended its
	// sleep as the lock was freed (its retry then comes at once) may have
	// beaten the message: a waiter that no message woke sleeps until its
	// timer, any time up to the holder's lease after the unlock.
	got := <-acquired
	e := events.await(t, EventAcquired, func(e Event) bool { return e.Owner == got.owner })
	if took := got.at.Sub(unlocked); e.Wakeups == 0 && took > clusterLease/4 {
		t.Fatalf("%s: the waiter took the lock %v after the unlock, woken by no message: it slept out its timer", name, took)
	}
	return true
}

// awaitLapsedWaiter awaits the waiter of a hold whose lease lapsed (done, unless it
// already finished) and reports false.
func awaitLapsedWaiter(t *testing.T, name string, done <-chan error) bool {
	t.Helper()
	if done == nil {
		return false
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("%s: the waiter after a lapsed hold: %v", name, err)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("%s: the holder's lease lapsed, and its waiter did not take the lock", name)
	}
	return false
}

// A name whose keys would span slots is refused on a Cluster and on a
// single node alike, by every kind, so that code tried on one works on the
// other.
func TestNamesRefusedOnEveryTopology(t *testing.T) {
	_, cluster := startCluster(t)
	ctx := ctxT(t)
	for topology, rdb := range map[string]redis.UniversalClient{"cluster": cluster, "single node": newRedis(t)} {
		c := newClient(t, rdb)
		for _, name := range []string{"a}b", "a{b", "a{}b", "}x", "{", "{}", ""} {
			errs := map[string]error{"Mutex": c.NewMutex(name).Lock(ctx), "FairMutex": c.NewFairMutex(name).Lock(ctx), "RWMutex": c.NewRWMutex(name).RLock(ctx)}
			_, errs["FencedMutex"] = c.NewFencedMutex(name).Lock(ctx)
			_, errs["IsLocked"] = c.NewMutex(name).IsLocked(ctx)
			for what, err := range errs {
				if !errors.Is(err, ErrInvalidName) {
					t.Errorf("%s: %s(%q) = %v, want ErrInvalidName", topology, what, name, err)
				}
			}
		}
		for _, name := range []string{"{a}b", "x{a}{b}", "a:b"} {
			m := c.NewMutex(name)
			if err := m.Lock(ctx); err != nil {
				t.Errorf("%s: Lock(%q): %v", topology, name, err)
			} else if err := m.Unlock(ctx); err != nil {
				t.Errorf("%s: Unlock(%q): %v", topology, name, err)
			}
		}
	}
}

func TestShardedPubSubNeedsACluster(t *testing.T) {
	if _, err := New(srv.Client(t), WithShardedPubSub(true)); err == nil {
		t.Fatal("sharded pub/sub accepted on a single-node client")
	}
}
