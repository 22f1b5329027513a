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

// A handle whose last Unlock failed locks again, either side of an
// RWMutex, once the failed hold has ended (within its lease, its renewal
// stopped): the slot the failed Unlock kept for its retry is given up
// then, and the next acquisition drops what is left of the hold in Redis,
// so that its own release leaves nothing behind.
func TestFailedUnlockThenLockOnSameHandle(t *testing.T) {
	rdb := newRedis(t)
	type side struct{ lock, unlock, relock, reunlock func(context.Context) error }
	sides := map[string]func(c *Client, name string) side{
		"mutex": func(c *Client, name string) side {
			m := c.NewMutex(name)
			return side{m.Lock, m.Unlock, m.Lock, m.Unlock}
		},
		"fenced": func(c *Client, name string) side {
			m := c.NewFencedMutex(name)
			lock := func(ctx context.Context) error {
				_, err := m.Lock(ctx)
				return err
			}
			return side{lock, m.Unlock, lock, m.Unlock}
		},
		"rwwrite": func(c *Client, name string) side {
			m := c.NewRWMutex(name)
			return side{m.Lock, m.Unlock, m.RLock, m.RUnlock}
		},
		"rwread": func(c *Client, name string) side {
			m := c.NewRWMutex(name)
			return side{m.RLock, m.RUnlock, m.Lock, m.Unlock}
		},
		"fairrwwrite": func(c *Client, name string) side {
			m := c.NewFairRWMutex(name)
			return side{m.Lock, m.Unlock, m.RLock, m.RUnlock}
		},
		"fairrwread": func(c *Client, name string) side {
			m := c.NewFairRWMutex(name)
			return side{m.RLock, m.RUnlock, m.Lock, m.Unlock}
		},
	}
	for kind, mk := range sides {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			ctx := ctxT(t)
			nc, p := proxied(t, rdb)
			name := "failed-unlock:" + kind
			s := mk(nc(), name)
			if err := s.lock(ctx); err != nil {
				t.Fatal(err)
			}
			failUnlock(t, ctx, p, s.unlock)
			// The hold ends within a lease (proxied's watchdog timeout);
			// the bound leaves a loaded machine room.
			lctx, cancel := context.WithTimeout(ctx, 5*600*time.Millisecond)
			defer cancel()
			if err := s.relock(lctx); err != nil {
				t.Fatalf("the handle could not lock again within 5 leases: %v", err)
			}
			if err := s.reunlock(ctx); err != nil {
				t.Fatal(err)
			}
			if n := exist(t, rdb, []string{name}); n != 0 {
				t.Fatalf("the lock is left behind: %v", rdb.HGetAll(ctx, name).Val())
			}
		})
	}
}
