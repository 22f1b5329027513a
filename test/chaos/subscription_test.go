package chaos

import (
	"context"
	"testing"
	"time"

	"github.com/relock-go/relock/pubsub"
	"github.com/relock-go/relock/rlock"
	"github.com/relock-go/relock/test/faultproxy"
	"github.com/relock-go/relock/test/redistest"
	"github.com/relock-go/relock/test/testkit"
	"github.com/relock-go/relock/test/testkit/lockkit"
)

// handoffBound is the longest a waiter may take to acquire a released lock
// after its subscription connection failed: a resubscription and a retry,
// with room for a loaded machine, and far below the lease (30s, the
// default watchdog timeout) that a wake-up by TTL would take.
const handoffBound = 3 * time.Second

func TestWaitersAcquireSoonAfterTheirSubscriptionFails(t *testing.T) {
	const healthCheck = 100 * time.Millisecond
	for _, tc := range []struct {
		name string
		// fail breaks the waiters' subscription connections.
		fail func(t *testing.T, p *faultproxy.Proxy)
		// settle, when set, waits until the waiters resubscribed and
		// retried before the lock is released; otherwise the release
		// comes at once, possibly before they resubscribe.
		settle bool
	}{
		{"proxy resets every connection, release at once", func(t *testing.T, p *faultproxy.Proxy) { p.ResetAll() }, false},
		{"proxy resets every connection, release after resubscription", func(t *testing.T, p *faultproxy.Proxy) { p.ResetAll() }, true},
		{"server kills pub/sub connections", func(t *testing.T, p *faultproxy.Proxy) {
			if err := direct(t).ClientKillByFilter(context.Background(), "TYPE", "pubsub").Err(); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"connection silent longer than the health check", func(t *testing.T, p *faultproxy.Proxy) {
			p.BlackHole(true)
			time.Sleep(6 * healthCheck) // the fault itself: silence for this long
			p.BlackHole(false)
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fresh(t)
			ctx := testkit.Ctx(t, within)
			p := testkit.StartProxy(t, srv.Addr)
			const name = "resubscribe"
			// The holder talks to Redis directly; each waiter has its own
			// Client behind the proxy, so that each makes its own
			// attempts and the server's counters tell when all sleep.
			holder := lockkit.NewClient(t, direct(t)).NewMutex(name)
			if err := holder.Lock(ctx); err != nil {
				t.Fatal(err)
			}
			admin := direct(t)
			if err := admin.ConfigResetStat(ctx).Err(); err != nil {
				t.Fatal(err)
			}
			const n = 3
			waiters := make([]*rlock.Mutex, n)
			clients := make([]*rlock.Client, n)
			acquired := make(chan int, n)
			errs := make(chan error, n)
			for i := range waiters {
				clients[i] = lockkit.NewClient(t, proxied(t, p, 0), rlock.WithHealthCheck(healthCheck))
				waiters[i] = clients[i].NewMutex(name)
				go func() {
					if err := waiters[i].Lock(ctx); err != nil {
						errs <- err
						return
					}
					acquired <- i
				}()
			}
			// Each waiter attempts, subscribes, attempts again, sleeps.
			attempts := func() int64 {
				calls, err := redistest.CommandCalls(ctx, admin)
				if err != nil {
					t.Fatal(err)
				}
				return calls["evalsha"]
			}
			testkit.Eventually(t, within, "every waiter asleep after two attempts", func() bool { return attempts() >= 2*n })
			// And each has its second reply: a fault now cuts no attempt
			// short.
			testkit.Eventually(t, within, "every waiter's second reply read", func() bool {
				for _, c := range clients {
					if w := c.Activity().Waiters; len(w) != 1 || w[0].Attempts < 2 {
						return false
					}
				}
				return true
			})

			tc.fail(t, p)
			if tc.settle {
				testkit.Eventually(t, within, "every waiter retried after resubscribing", func() bool { return attempts() >= 3*n })
			}

			released := time.Now()
			if err := holder.Unlock(ctx); err != nil {
				t.Fatal(err)
			}
			for range n {
				select {
				case i := <-acquired:
					if d := time.Since(released); d > handoffBound {
						t.Fatalf("waiter took %v to acquire after the release, want at most %v", d, handoffBound)
					}
					released = time.Now()
					if err := waiters[i].Unlock(ctx); err != nil {
						t.Fatalf("waiter %d Unlock: %v", i, err)
					}
				case err := <-errs:
					t.Fatalf("waiter Lock: %v", err)
				case <-time.After(handoffBound):
					t.Fatalf("no waiter acquired within %v of the release", handoffBound)
				}
			}
		})
	}
}

func TestSubscribeCompletesWhenItsConfirmationIsLost(t *testing.T) {
	fresh(t)
	ctx := testkit.Ctx(t, within)
	p := testkit.StartProxy(t, srv.Addr)
	const healthCheck = 300 * time.Millisecond
	hub := pubsub.New(proxied(t, p, 0), pubsub.Options{HealthCheck: healthCheck})
	t.Cleanup(func() { _ = hub.Close() })
	// A confirmed subscription: the connection is up and idle, and nothing
	// else talks through the proxy, so the next reply from Redis is the
	// confirmation of the next SUBSCRIBE.
	warm, err := hub.Subscribe(ctx, "warm")
	if err != nil {
		t.Fatal(err)
	}
	defer warm.Close()

	p.DropReplies(1)
	sctx, cancel := context.WithTimeout(ctx, handoffBound)
	defer cancel()
	start := time.Now()
	sub, err := hub.Subscribe(sctx, "lost-confirmation")
	if err != nil {
		t.Fatalf("Subscribe whose confirmation was lost: %v after %v; want the hub to find out (health check %v) and subscribe again",
			err, time.Since(start), healthCheck)
	}
	sub.Close()
}

// A waiter whose subscription Redis never confirms (every SUBSCRIBE lost,
// connection after connection) still attempts again once the lock's TTL
// has passed, as it would after a lost release message: it takes the lock
// when the holder's lease ends, instead of waiting for the confirmation
// until its ctx ends.
func TestWaiterAttemptsAtTheTTLWhenItsSubscriptionIsNeverConfirmed(t *testing.T) {
	fresh(t)
	ctx := testkit.Ctx(t, within)
	p := testkit.StartProxy(t, srv.Addr)
	p.DropRequests("SUBSCRIBE")
	const lease = 500 * time.Millisecond
	holder := lockkit.NewClient(t, direct(t)).NewMutex("unconfirmed")
	if ok, err := holder.TryLock(ctx, 0, lease); err != nil || !ok {
		t.Fatalf("holder TryLock: %v, %v", ok, err)
	}
	waiter := lockkit.NewClient(t, proxied(t, p, 0), rlock.WithHealthCheck(100*time.Millisecond)).NewMutex("unconfirmed")
	if err := waiter.Lock(ctx); err != nil {
		t.Fatalf("waiter Lock with its subscriptions never confirmed: %v", err)
	}
	// (A script's text sent to load it may hold the word.)
	p.DropRequests("")
	if err := waiter.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
}
