package rlock

import (
	"context"
	"testing"
	"time"
)

// rwKinds makes the two kinds of read-write lock.
var rwKinds = map[string]func(c *Client, name string) *RWMutex{
	"rw":     (*Client).NewRWMutex,
	"fairrw": (*Client).NewFairRWMutex,
}

// failUnlock makes unlock fail: it is sent through p's black hole, so no
// release reaches Redis. The Clients of proxied give up within 300 ms.
func failUnlock(t *testing.T, ctx context.Context, p interface{ BlackHole(bool) }, unlock func(context.Context) error) {
	t.Helper()
	p.BlackHole(true)
	err := unlock(ctx)
	p.BlackHole(false)
	if err == nil {
		t.Fatal("an Unlock through a black hole succeeded")
	}
}

// A read hold whose RUnlock failed is not kept alive by the handle's next
// read: that RLock settles the failed release before it reads, so once it
// is released too no read hold is left, and another owner's writer gets
// the lock within a lease, although the reader's Client renews holds
// (and renewed the first before its RUnlock failed).
func TestFailedRUnlockThenRLockLeavesNoReadHold(t *testing.T) {
	rdb := newRedis(t)
	for kind, mk := range rwKinds {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			ctx := ctxT(t)
			nc, p := proxied(t, rdb)
			name := "failed-runlock:" + kind
			r := mk(nc(), name)
			if err := r.RLock(ctx); err != nil {
				t.Fatal(err)
			}
			failUnlock(t, ctx, p, r.RUnlock)
			if err := r.RLock(ctx); err != nil {
				t.Fatal(err)
			}
			if err := r.RUnlock(ctx); err != nil {
				t.Fatal(err)
			}
			w := mk(newClient(t, rdb), name)
			lease := 600 * time.Millisecond // proxied's watchdog timeout
			ok, err := w.TryLock(ctx, 3*lease, 0)
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				t.Fatalf("no writer got the lock within 3 leases: its hash is %v", rdb.HGetAll(ctx, name).Val())
			}
			if err := w.Unlock(ctx); err != nil {
				t.Fatal(err)
			}
		})
	}
}
