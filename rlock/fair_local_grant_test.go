package rlock

import (
	"context"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/test/testkit"
)

// A release that grants the fair lock to a waiter of its own Client tells
// it in the process, from the release's reply: the waiter takes the grant
// though its subscription connection hears nothing any more (it goes
// through a proxy that is black-holed once the waiter sleeps; the
// commands go straight to Redis). Told only by message, the waiter would
// sleep out its pause, then claim the lock by an attempt, not granted.
func TestFairGrantToAWaiterOfTheSameClientIsToldInProcess(t *testing.T) {
	direct := newRedis(t)
	ctx := ctxT(t)
	p := testkit.StartProxy(t, direct.Options().Addr)
	var viaProxy atomic.Bool
	rdb := redis.NewClient(&redis.Options{
		Addr: direct.Options().Addr, PoolSize: 4, MinIdleConns: 4,
		Dialer: func(ctx context.Context, network, addr string) (net.Conn, error) {
			if viaProxy.Load() {
				addr = p.Addr()
			}
			var d net.Dialer
			return d.DialContext(ctx, network, addr)
		},
	})
	t.Cleanup(func() { _ = rdb.Close() })
	// The pool's connections, made now, are direct; the subscription
	// connection, made at the first wait, goes through the proxy.
	eventually(t, 5*time.Second, "the pool's connections open", func() bool { return rdb.PoolStats().TotalConns == 4 })
	viaProxy.Store(true)

	rec := newRecorder()
	// A minute's health check and wait timeout: no connection replaced,
	// and the waiter's pause (its retry by timer) far past the test.
	c := newClient(t, rdb, WithObserver(rec), WithHealthCheck(time.Minute), WithFairWaitTimeout(time.Minute))
	const name = "fair-told-in-process"
	holder := c.NewFairMutex(name)
	if err := holder.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	waiter := c.NewFairMutex(name)
	got := lockAsync(ctx, waiter)
	awaitQueue(t, direct, name, waiter.Owner())
	eventually(t, 5*time.Second, "the waiter asleep", func() bool { return hubOf(c).Stats().Sleeping == 1 })
	p.BlackHole(true)
	mustUnlock(t, holder)
	awaitLock(t, got, 10*time.Second)
	acq := rec.await(t, EventAcquired, func(e Event) bool { return e.Owner == waiter.Owner() })
	if !acq.Granted {
		t.Fatalf("waiter's acquisition %+v: not the grant, which its Client's release did not tell it", acq)
	}
	mustUnlock(t, waiter)
}
