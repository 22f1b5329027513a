package rlock

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"golang.org/x/sync/errgroup"
)

func TestReentrancyCountsHolds(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	m := newClient(t, rdb).NewMutex("reentrant")

	for want := 1; want <= 3; want++ {
		take := m.Lock
		if want > 1 {
			take = m.Reenter
		}
		if err := take(ctx); err != nil {
			t.Fatal(err)
		}
		if n, err := m.HoldCount(ctx); err != nil || n != want {
			t.Fatalf("HoldCount = %d, %v; want %d", n, err, want)
		}
	}
	// Redisson layout: a hash at the name, field owner id, value count.
	if got := rdb.HGetAll(ctx, "reentrant").Val(); len(got) != 1 || got[m.Owner()] != "3" {
		t.Fatalf("lock hash = %v, want {%s: 3}", got, m.Owner())
	}
	for want := 2; want >= 0; want-- {
		if err := m.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
		if n, _ := m.HoldCount(ctx); n != want {
			t.Fatalf("HoldCount = %d, want %d", n, want)
		}
	}
	if rdb.Exists(ctx, "reentrant").Val() != 0 {
		t.Fatal("lock key left after the last Unlock")
	}
	if err := m.Unlock(ctx); !errors.Is(err, ErrNotHeld) {
		t.Fatalf("extra Unlock = %v, want ErrNotHeld", err)
	}
}

func TestOwnerIDIsClientIDAndSequence(t *testing.T) {
	c := newClient(t, newRedis(t))
	a, b := c.NewMutex("x"), c.NewMutex("x")
	if !strings.HasPrefix(a.Owner(), c.ID()+":") || a.Owner() == b.Owner() {
		t.Fatalf("owners %q, %q: want distinct ids prefixed by client id %q", a.Owner(), b.Owner(), c.ID())
	}
	if a.Name() != "x" {
		t.Fatalf("Name = %q", a.Name())
	}
}

func TestExclusionBetweenOwnersAndClients(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	c1, c2 := newClient(t, rdb), newClient(t, rdb)
	holder := c1.NewMutex("excl")
	if err := holder.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	for name, other := range map[string]*Mutex{"same client": c1.NewMutex("excl"), "other client": c2.NewMutex("excl")} {
		ok, err := other.TryLock(ctx, 0, 0)
		if err != nil || ok {
			t.Errorf("%s: TryLock on a held lock = %v, %v; want false", name, ok, err)
		}
		if err := other.Unlock(ctx); !errors.Is(err, ErrNotHeld) {
			t.Errorf("%s: Unlock by a non-owner = %v, want ErrNotHeld", name, err)
		}
		if held, err := other.IsHeld(ctx); held || err != nil {
			t.Errorf("%s: IsHeld for a non-owner = %v, %v; want false", name, held, err)
		}
	}
	if n, err := holder.HoldCount(ctx); n != 1 || err != nil {
		t.Fatalf("the holder's count after non-owner unlocks = %d, %v; want 1", n, err)
	}
	if locked, err := holder.IsLocked(ctx); !locked || err != nil {
		t.Fatalf("IsLocked while held = %v, %v", locked, err)
	}
}

func TestTryLockWaitElapsesOrContextEnds(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	c := newClient(t, rdb)
	if err := c.NewMutex("busy").Lock(ctx); err != nil {
		t.Fatal(err)
	}
	m := c.NewMutex("busy")

	start := time.Now()
	ok, err := m.TryLock(ctx, 150*time.Millisecond, 0)
	if ok || err != nil {
		t.Fatalf("TryLock = %v, %v; want false, nil after the wait", ok, err)
	}
	if waited := time.Since(start); waited < 150*time.Millisecond || waited > 5*time.Second {
		t.Fatalf("TryLock returned after %v, want about 150ms", waited)
	}

	short, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	ok, err = m.TryLock(short, time.Minute, 0)
	if ok || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("TryLock = %v, %v; want false, context.DeadlineExceeded", ok, err)
	}
}

func TestBadInput(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	if _, err := New(nil); err == nil {
		t.Error("New(nil) succeeded")
	}
	for _, opt := range []Option{
		WithWatchdogTimeout(0), WithWatchdogTimeout(-time.Second), WithSpin(nil),
		WithSubscriptionConnections(0), WithHealthCheck(0), nil,
	} {
		if c, err := New(rdb, opt); err == nil {
			c.Close()
			t.Errorf("New with a bad option succeeded")
		}
	}
	c := newClient(t, rdb)
	empty := c.NewMutex("")
	for name, err := range map[string]error{
		"Lock":     empty.Lock(ctx),
		"Unlock":   empty.Unlock(ctx),
		"TryLock":  second(empty.TryLock(ctx, 0, 0)),
		"Count":    second(empty.HoldCount(ctx)),
		"IsLocked": second(empty.IsLocked(ctx)),
		"IsHeld":   second(empty.IsHeld(ctx)),
		"TTL":      second(empty.TTL(ctx)),
		"Force":    second(empty.ForceUnlock(ctx)),
	} {
		if !errors.Is(err, ErrInvalidName) {
			t.Errorf("%s on an empty name = %v, want ErrInvalidName", name, err)
		}
	}
	m := c.NewMutex("bad")
	if _, err := m.TryLock(ctx, -time.Second, 0); err == nil {
		t.Error("negative wait accepted")
	}
	if _, err := m.TryLock(ctx, 0, -time.Second); err == nil {
		t.Error("negative lease accepted")
	}
	if err := m.LockWithLease(ctx, 0); err == nil {
		t.Error("zero fixed lease accepted")
	}
	if held, err := m.IsLocked(ctx); held || err != nil {
		t.Errorf("IsLocked after bad input = %v, %v; want false: bad input took the lock", held, err)
	}
	// A key of another type is reported, not overwritten.
	rdb.Set(ctx, "string-key", "v", 0)
	if err := c.NewMutex("string-key").Lock(ctx); !errors.Is(err, ErrWrongType) || !strings.Contains(err.Error(), "it is a string, not a lock") {
		t.Errorf("Lock on a string key = %v, want ErrWrongType saying it is a string", err)
	}
}

func second[T any](_ T, err error) error { return err }

func TestContentionKeepsReadModifyWriteExact(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	const clients, goroutines, rounds = 3, 4, 25
	var g errgroup.Group
	var cs []*Client
	for range clients {
		// Each Client has its own connection pool, as separate processes would.
		own := srv.Client(t)
		c := newClient(t, own)
		cs = append(cs, c)
		for range goroutines {
			g.Go(func() error {
				m := c.NewMutex("counter-lock")
				for range rounds {
					if err := m.Lock(ctx); err != nil {
						return err
					}
					n, err := own.Get(ctx, "counter").Int()
					if err != nil && !errors.Is(err, redis.Nil) {
						return err
					}
					if err := own.Set(ctx, "counter", n+1, 0).Err(); err != nil {
						return err
					}
					if err := m.Unlock(ctx); err != nil {
						return err
					}
				}
				return nil
			})
		}
	}
	if err := g.Wait(); err != nil {
		// What held the lock, and who waited where, when it failed.
		ictx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		info, ierr := cs[0].Inspect(ictx, "counter-lock")
		t.Errorf("the lock: %+v (%v)", info, ierr)
		for i, c := range cs {
			t.Errorf("Client %d: %+v", i, c.Activity())
		}
		t.Fatal(err)
	}
	if n, _ := rdb.Get(ctx, "counter").Int(); n != clients*goroutines*rounds {
		t.Fatalf("counter = %d, want %d: critical sections overlapped", n, clients*goroutines*rounds)
	}
}

func TestSpinModeExcludesAndPolls(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	c := newClient(t, rdb, WithSpin(ConstantBackoff(20*time.Millisecond)))
	if hubOf(c) != nil {
		t.Fatal("spin mode subscribed")
	}
	holder := c.NewMutex("spin")
	if err := holder.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- c.NewMutex("spin").Lock(ctx) }()
	before := evalCalls(t, rdb)
	// Nothing is published and the lock's TTL is 30s: only polling (every
	// 20ms) retries within seconds.
	eventually(t, 5*time.Second, "the spinning waiter's retries", func() bool { return evalCalls(t, rdb)-before >= 3 })
	if err := holder.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestLockerAdapter(t *testing.T) {
	rdb := newRedis(t)
	l := newClient(t, rdb).NewMutex("locker").Locker()
	l.Lock()
	if rdb.Exists(context.Background(), "locker").Val() != 1 {
		t.Fatal("Locker.Lock did not take the lock")
	}
	l.Unlock()
	defer func() {
		if recover() == nil {
			t.Fatal("Locker.Unlock of an unheld lock did not panic")
		}
	}()
	l.Unlock()
}
