package rlock

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/internal/keys"
	"github.com/relock-go/relock/test/faultproxy"
	"github.com/relock-go/relock/test/testkit"
)

// held is one kind of lock, as the Unlock tests drive it.
type held struct {
	lock   func(context.Context) error
	unlock func(context.Context) error
	lost   func() <-chan struct{}
	keys   []string // the Redis keys that exist while it is held
}

// kinds makes one handle of each kind of lock on name; newClient gives the
// Clients (a RedLock needs three).
var kinds = map[string]func(newClient func() *Client, name string) held{
	"mutex": func(nc func() *Client, name string) held {
		m := nc().NewMutex(name)
		return held{m.Lock, m.Unlock, m.Lost, []string{name}}
	},
	"fair": func(nc func() *Client, name string) held {
		m := nc().NewFairMutex(name)
		return held{m.Lock, m.Unlock, m.Lost, []string{name}}
	},
	"fenced": func(nc func() *Client, name string) held {
		m := nc().NewFencedMutex(name)
		lock := func(ctx context.Context) error {
			_, err := m.Lock(ctx)
			return err
		}
		return held{lock, m.Unlock, m.Lost, []string{name}}
	},
	"rwwrite": func(nc func() *Client, name string) held {
		m := nc().NewRWMutex(name)
		return held{m.Lock, m.Unlock, m.Lost, []string{name}}
	},
	"rwread": func(nc func() *Client, name string) held {
		m := nc().NewRWMutex(name)
		return held{m.RLock, m.RUnlock, m.RLost, []string{name, keys.ReadTimeouts(name, m.Owner()) + ":1"}}
	},
	"multi": func(nc func() *Client, name string) held {
		c := nc()
		l := NewMultiLock(c.NewMutex(name+"/a"), c.NewFairMutex(name+"/b"))
		return held{l.Lock, l.Unlock, l.Lost, []string{name + "/a", name + "/b"}}
	},
	"redlock": func(nc func() *Client, name string) held {
		l := NewRedLock(nc().NewMutex(name+"/1"), nc().NewMutex(name+"/2"), nc().NewMutex(name+"/3"))
		return held{l.Lock, l.Unlock, l.Lost, []string{name + "/1", name + "/2", name + "/3"}}
	},
}

// exist is how many of ks exist in rdb.
func exist(t *testing.T, rdb *redis.Client, ks []string) int64 {
	t.Helper()
	n, err := rdb.Exists(context.Background(), ks...).Result()
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// Each hold field keeps one release record (Redisson's unlock latch key),
// which every release overwrites: many Lock and Unlock cycles of every kind
// leave one record per field that released (a MultiLock's or a RedLock's
// per member), with a TTL, not one per Unlock. The last release of a Mutex or a FencedMutex that succeeds
// at its first send, sent bare, writes none.
func TestReleaseRecordsAreOnePerHoldField(t *testing.T) {
	fields := map[string]int{"mutex": 0, "fair": 1, "fenced": 0, "rwwrite": 1, "rwread": 1, "multi": 1, "redlock": 0}
	for kind, mk := range kinds {
		t.Run(kind, func(t *testing.T) {
			rdb := newRedis(t)
			ctx := ctxT(t)
			h := mk(func() *Client { return newClient(t, srv.Client(t)) }, "u")
			for range 20 {
				if err := h.lock(ctx); err != nil {
					t.Fatal(err)
				}
				if err := h.unlock(ctx); err != nil {
					t.Fatal(err)
				}
			}
			records, err := rdb.Keys(ctx, "redisson_unlock_latch*").Result()
			if err != nil {
				t.Fatal(err)
			}
			if len(records) != fields[kind] {
				t.Fatalf("release records after 20 cycles: %q, want %d", records, fields[kind])
			}
			for _, k := range records {
				if ttl := rdb.PTTL(ctx, k).Val(); ttl <= 0 {
					t.Fatalf("record %s has no TTL (%v)", k, ttl)
				}
			}
		})
	}
}

// An Unlock whose ctx has ended still releases the lock, and says so with
// nil: a deferred Unlock with a request's ctx leaks nothing.
func TestUnlockWithEndedContextReleases(t *testing.T) {
	ended := map[string]func() context.Context{
		"cancelled": func() context.Context {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			return ctx
		},
		"expired": func() context.Context {
			ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
			t.Cleanup(cancel)
			return ctx
		},
	}
	for kind, mk := range kinds {
		for how, endedCtx := range ended {
			t.Run(kind+"/"+how, func(t *testing.T) {
				rdb := newRedis(t)
				ctx := ctxT(t)
				nc := func() *Client { return newClient(t, srv.Client(t), WithWatchdogTimeout(300*time.Millisecond)) }
				h := mk(nc, "u")
				if err := h.lock(ctx); err != nil {
					t.Fatal(err)
				}
				lost := h.lost()
				if err := h.unlock(endedCtx()); err != nil {
					t.Fatalf("Unlock with a %s ctx = %v, want nil", how, err)
				}
				if n := exist(t, rdb, h.keys); n != 0 {
					t.Fatalf("%d lock keys left after Unlock", n)
				}
				if !isClosed(h.lost()) {
					t.Fatal("Lost of a released lock is not closed")
				}
				select {
				case <-lost:
					t.Fatal("the released hold was reported lost")
				default:
				}
			})
		}
	}
}

// proxied returns a function making Clients whose Redis is reached
// through a fault proxy, with short timeouts, and the proxy.
func proxied(t *testing.T, rdb *redis.Client) (func() *Client, *faultproxy.Proxy) {
	p := testkit.StartProxy(t, rdb.Options().Addr)
	nc := func() *Client {
		r := redis.NewClient(&redis.Options{Addr: p.Addr(), MaxRetries: -1, DialTimeout: 200 * time.Millisecond,
			ReadTimeout: 200 * time.Millisecond, WriteTimeout: 200 * time.Millisecond})
		t.Cleanup(func() { _ = r.Close() })
		return newClient(t, r, WithWatchdogTimeout(600*time.Millisecond), WithUnlockTimeout(300*time.Millisecond))
	}
	return nc, p
}

// An Unlock that cannot reach Redis returns its error without hanging,
// ends the renewal of the hold, and so the lock expires within its lease
// even when Redis is reachable again right after: no lock is kept alive by
// a watchdog nobody will stop.
func TestUnlockUnreachableEndsRenewal(t *testing.T) {
	rdb := newRedis(t)
	for kind, mk := range kinds {
		for _, how := range []string{"live", "cancelled"} {
			t.Run(kind+"/"+how, func(t *testing.T) {
				// Each case has its own proxy, Clients and names, so the
				// cases wait out their leases together.
				t.Parallel()
				ctx := ctxT(t)
				nc, p := proxied(t, rdb)
				h := mk(nc, "u:"+kind+":"+how)
				if err := h.lock(ctx); err != nil {
					t.Fatal(err)
				}
				lost := h.lost()
				uctx := ctx
				if how == "cancelled" {
					var cancel context.CancelFunc
					uctx, cancel = context.WithCancel(ctx)
					cancel()
				}
				p.BlackHole(true)
				start := time.Now()
				err := h.unlock(uctx)
				took := time.Since(start)
				p.BlackHole(false)
				if err == nil {
					t.Fatal("Unlock through a black hole succeeded")
				}
				if took > 5*time.Second {
					t.Fatalf("Unlock took %v: not bounded", took)
				}
				t.Logf("Unlock failed after %v: %v", took, err)
				select {
				case <-lost:
				case <-time.After(5 * time.Second):
					t.Fatal("Lost not closed after the failed Unlock")
				}
				eventually(t, 5*time.Second, "the lock expired", func() bool { return exist(t, rdb, h.keys) == 0 })
			})
		}
	}
}

// A fair waiter whose ctx ends leaves the queue before Lock returns, even
// though its ctx has ended when it leaves.
func TestFairWaiterLeavesQueueWhenCancelled(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	c := newClient(t, rdb)
	holder := c.NewFairMutex("fq")
	if err := holder.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- c.NewFairMutex("fq").Lock(wctx) }()
	eventually(t, 5*time.Second, "the waiter queued", func() bool { return rdb.LLen(ctx, keys.Queue("fq")).Val() == 1 })
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Lock = %v, want context.Canceled", err)
	}
	if n := rdb.LLen(ctx, keys.Queue("fq")).Val(); n != 0 {
		t.Fatalf("queue length %d after the waiter gave up, want 0", n)
	}
	if n := rdb.ZCard(ctx, keys.Timeout("fq")).Val(); n != 0 {
		t.Fatalf("%d deadlines left after the waiter gave up, want 0", n)
	}
}

// A cancelled Lock, and one that the Client's Close ends, return promptly
// with ctx.Err() or ErrClosed, wrapped in an *Error naming the lock.
func TestLockErrorsNameOperationAndLock(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	c := newClient(t, rdb)
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	err := c.NewMutex("e").Lock(cctx)
	var e *Error
	if !errors.Is(err, context.Canceled) || !errors.As(err, &e) || e.Op != "lock" || e.Name != "e" {
		t.Fatalf("Lock with a cancelled ctx = %#v", err)
	}
	if got, want := err.Error(), `rlock: lock "e": context canceled`; got != want {
		t.Fatalf("error text %q, want %q", got, want)
	}
	err = c.NewMutex("e").Unlock(ctx)
	if got, want := fmt.Sprint(err), `rlock: unlock "e": lock not held by this owner`; got != want || !errors.Is(err, ErrNotHeld) {
		t.Fatalf("Unlock of a lock not held = %q, want %q wrapping ErrNotHeld", got, want)
	}
}
