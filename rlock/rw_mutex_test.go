package rlock

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/relock-go/relock/internal/keys"
)

// forRWKinds runs test on a plain and on a fair RWMutex: both behave alike
// but for the order of their grants.
func forRWKinds(t *testing.T, test func(t *testing.T, newRW func(*Client, string) *RWMutex)) {
	for _, k := range []struct {
		name  string
		newRW func(*Client, string) *RWMutex
	}{{"plain", (*Client).NewRWMutex}, {"fair", (*Client).NewFairRWMutex}} {
		t.Run(k.name, func(t *testing.T) { test(t, k.newRW) })
	}
}

// Writers exclude readers and each other, readers run together; a counter
// written under the write lock and read under the read lock comes out
// exact, with goroutines spread over two Clients.
func TestRWMutexExcludesWritersFromReadersAndEachOther(t *testing.T) {
	forRWKinds(t, func(t *testing.T, newRW func(*Client, string) *RWMutex) {
		rdb := newRedis(t)
		ctx := ctxT(t)
		clients := []*Client{newClient(t, rdb), newClient(t, srv.Client(t))}
		const writers, readers, rounds = 4, 8, 15
		var active, writing, maxReaders atomic.Int64
		var wg sync.WaitGroup
		errs := make(chan error, writers+readers)
		for i := range writers + readers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				rw := newRW(clients[i%2], "rw")
				for range rounds {
					if i < writers {
						if err := rw.Lock(ctx); err != nil {
							errs <- err
							return
						}
						if writing.Add(1) != 1 || active.Load() != 0 {
							errs <- errors.New("a writer ran beside another owner")
						}
						n, _ := rdb.Get(ctx, "counter").Int()
						rdb.Set(ctx, "counter", n+1, 0)
						writing.Add(-1)
						if err := rw.Unlock(ctx); err != nil {
							errs <- err
							return
						}
						continue
					}
					if err := rw.RLock(ctx); err != nil {
						errs <- err
						return
					}
					n := active.Add(1)
					for m := maxReaders.Load(); n > m && !maxReaders.CompareAndSwap(m, n); m = maxReaders.Load() {
					}
					if writing.Load() != 0 {
						errs <- errors.New("a reader ran beside a writer")
					}
					time.Sleep(time.Millisecond) // the critical section
					active.Add(-1)
					if err := rw.RUnlock(ctx); err != nil {
						errs <- err
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		if n, _ := rdb.Get(ctx, "counter").Int(); n != writers*rounds {
			t.Fatalf("counter = %d, want %d", n, writers*rounds)
		}
		if maxReaders.Load() < 2 {
			t.Fatalf("at most %d reader at once: readers did not share", maxReaders.Load())
		}
		if n := rdb.Exists(ctx, "rw").Val(); n != 0 {
			t.Fatal("lock left behind")
		}
	})
}

// Both locks re-enter explicitly, a writer may read (downgrade), a handle
// that reads does not write: its Lock waits for its readers, as
// sync.RWMutex's does.
func TestRWMutexReentryDowngradeAndNoUpgrade(t *testing.T) {
	forRWKinds(t, func(t *testing.T, newRW func(*Client, string) *RWMutex) {
		rdb := newRedis(t)
		ctx := ctxT(t)
		c := newClient(t, rdb)
		rw, other := newRW(c, "rw"), newRW(c, "rw")
		if err := rw.Lock(ctx); err != nil {
			t.Fatal(err)
		}
		if err := rw.Reenter(ctx); err != nil {
			t.Fatal(err)
		}
		if n, _ := rw.HoldCount(ctx); n != 2 {
			t.Fatalf("HoldCount = %d, want 2", n)
		}
		if err := rw.RReenter(ctx); err != nil {
			t.Fatalf("RReenter by the writer: %v", err)
		}
		if ok, err := other.TryRLock(ctx, 0, 0); ok || err != nil {
			t.Fatalf("another owner's TryRLock while the lock was written = %v, %v; want false", ok, err)
		}
		for range 2 {
			if err := rw.Unlock(ctx); err != nil {
				t.Fatal(err)
			}
		}
		if mode, _ := rw.Mode(ctx); mode != "read" {
			t.Fatalf("mode after the downgrade = %q, want read", mode)
		}
		if n, _ := rw.RHoldCount(ctx); n != 1 {
			t.Fatalf("RHoldCount after the downgrade = %d, want 1", n)
		}
		if ok, err := other.TryLock(ctx, 0, 0); ok || err != nil {
			t.Fatalf("another owner's TryLock while the lock was read = %v, %v; want false", ok, err)
		}
		if ok, err := other.TryRLock(ctx, 0, 0); !ok || err != nil {
			t.Fatalf("another reader's TryRLock = %v, %v; want true", ok, err)
		}
		if err := rw.RLock(ctx); err != nil {
			t.Fatal(err)
		}
		if n, _ := rw.RHoldCount(ctx); n != 2 {
			t.Fatalf("RHoldCount = %d, want 2", n)
		}
		if ok, err := rw.TryLock(ctx, 0, 0); ok || err != nil {
			t.Fatalf("TryLock by a reading handle = %v, %v, want false", ok, err)
		}
		wctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
		err := rw.Lock(wctx)
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Lock by a reading handle = %v, want to wait until its ctx ends", err)
		}
		for _, u := range []func(context.Context) error{rw.RUnlock, rw.RUnlock, other.RUnlock} {
			if err := u(ctx); err != nil {
				t.Fatal(err)
			}
		}
		if err := rw.RUnlock(ctx); !errors.Is(err, ErrNotHeld) {
			t.Fatalf("RUnlock of no read hold = %v, want ErrNotHeld", err)
		}
		if n := rdb.Exists(ctx, "rw").Val(); n != 0 {
			t.Fatal("lock left behind")
		}
	})
}

// The watchdog keeps read holds past many leases, their timeout keys
// with them; a fixed read lease runs out and RLost says so.
func TestRWMutexReadLeases(t *testing.T) {
	forRWKinds(t, func(t *testing.T, newRW func(*Client, string) *RWMutex) {
		rdb := newRedis(t)
		ctx := ctxT(t)
		// A lease a loaded machine's delays do not eat (renewals every
		// third).
		c := newClient(t, rdb, WithWatchdogTimeout(time.Second))
		rw := newRW(c, "rw")
		if err := rw.RLock(ctx); err != nil {
			t.Fatal(err)
		}
		timeout := keys.ReadTimeouts("rw", rw.Owner()) + ":1"
		time.Sleep(2 * time.Second) // over two leases
		if isClosed(rw.RLost()) {
			t.Fatal("the watchdog let a read hold go")
		}
		if n := rdb.Exists(ctx, "rw", timeout).Val(); n != 2 {
			t.Fatalf("%d of the lock and its read-timeout key left after two leases", n)
		}
		if err := rw.RUnlock(ctx); err != nil {
			t.Fatal(err)
		}

		fixed := newRW(c, "rw")
		if err := fixed.RLockWithLease(ctx, 200*time.Millisecond); err != nil {
			t.Fatal(err)
		}
		select {
		case <-fixed.RLost():
		case <-time.After(5 * time.Second):
			t.Fatal("RLost not closed when the fixed read lease ran out")
		}
		writer := newRW(c, "rw")
		if ok, err := writer.TryLock(ctx, 5*time.Second, 0); !ok || err != nil {
			t.Fatalf("writer after the read lease ran out = %v, %v", ok, err)
		}
	})
}

// Readers waiting on a written lock sleep without polling and are woken
// together, on pub/sub, by the write release.
func TestRWMutexReadersWokenTogetherWithoutPolling(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	writer := newClient(t, rdb).NewRWMutex("rw")
	if err := writer.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	c := newClient(t, srv.Client(t))
	const readers = 3
	got := make(chan error, readers)
	held := make(chan *RWMutex, readers)
	for range readers {
		go func() {
			rw := c.NewRWMutex("rw")
			err := rw.RLock(ctx)
			got <- err
			if err == nil {
				held <- rw
			}
		}()
	}
	eventually(t, 5*time.Second, "the readers asleep", func() bool { return hubOf(c).Stats().Sleeping == readers })
	before := evalCalls(t, rdb)
	time.Sleep(300 * time.Millisecond) // a window in which nothing may poll
	if polled := evalCalls(t, rdb) - before; polled != 0 {
		t.Fatalf("%d script calls while the readers slept: polling", polled)
	}
	if err := writer.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	for range readers {
		select {
		case err := <-got:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("readers not woken by the write release (the lease is 30s)")
		}
	}
	// All three hold the read lock at once.
	for range readers {
		rw := <-held
		if n, _ := rw.RHoldCount(ctx); n != 1 {
			t.Fatalf("reader holds %d", n)
		}
		defer rw.RUnlock(ctx)
	}
	if n := rdb.HLen(ctx, "rw").Val(); n != readers+1 {
		t.Fatalf("hash has %d fields, want mode and %d readers", n, readers)
	}
}

// An RWMutex's sides are MultiLock members like any lock.
func TestRWMutexInMultiLock(t *testing.T) {
	forRWKinds(t, func(t *testing.T, newRW func(*Client, string) *RWMutex) {
		rdb := newRedis(t)
		ctx := ctxT(t)
		c := newClient(t, rdb)
		a, b := newRW(c, "a"), newRW(c, "b")
		l := NewMultiLock(a.ReadMember(), b.WriteMember(), c.NewMutex("m"))
		if err := l.Lock(ctx); err != nil {
			t.Fatal(err)
		}
		if mode, _ := a.Mode(ctx); mode != "read" {
			t.Fatalf("a's mode = %q", mode)
		}
		if mode, _ := b.Mode(ctx); mode != "write" {
			t.Fatalf("b's mode = %q", mode)
		}
		if ok, _ := newRW(c, "a").TryRLock(ctx, 0, 0); !ok {
			t.Fatal("a read member kept another reader out")
		}
		if err := l.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
		if n := rdb.Exists(ctx, "b", "m").Val(); n != 0 {
			t.Fatalf("%d members left held", n)
		}
	})
}

// Hold counts, keys and fields are Redisson's: mode, reader fields, the
// writer's ":write" field, one read-timeout key per read hold.
func TestRWMutexLayout(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	rw := newClient(t, rdb).NewRWMutex("orders:{7}")
	if err := rw.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := rw.RReenter(ctx); err != nil {
			t.Fatal(err)
		}
	}
	h := rdb.HGetAll(ctx, "orders:{7}").Val()
	want := map[string]string{"mode": "write", rw.Owner() + ":write": "1", rw.Owner(): "2"}
	for k, v := range want {
		if h[k] != v {
			t.Fatalf("hash %v, want %v", h, want)
		}
	}
	for n := 1; n <= 2; n++ {
		key := "orders:{7}:" + rw.Owner() + ":rwlock_timeout:" + strconv.Itoa(n)
		if rdb.PTTL(ctx, key).Val() <= 0 {
			t.Fatalf("read-timeout key %s missing", key)
		}
	}
	if ok, err := rw.ForceUnlock(ctx); !ok || err != nil {
		t.Fatalf("ForceUnlock = %v, %v", ok, err)
	}
}
