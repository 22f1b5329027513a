package rlock

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"golang.org/x/sync/errgroup"
)

func TestMultiLockHoldsEveryMemberAcrossServers(t *testing.T) {
	rdb1, rdb2, c1, c2 := twoServers(t)
	ctx := ctxT(t)
	a, b, c := c1.NewMutex("a"), c2.NewMutex("b"), c1.NewFairMutex("c")
	d := c2.NewFencedMutex("d").Member()
	l := NewMultiLock(d, c, b, a)
	if err := l.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	wantHolders(t, rdb1, "a", a.Owner())
	wantHolders(t, rdb2, "b", b.Owner())
	wantHolders(t, rdb1, "c", c.Owner())
	wantHolders(t, rdb2, "d", d.Owner())
	if d.Token() <= 0 {
		t.Fatalf("fenced member token = %d, want a grant", d.Token())
	}
	if isClosed(l.Lost()) {
		t.Fatal("Lost is closed while the set is held")
	}
	if ok, err := NewMultiLock(c2.NewMutex("b")).TryLock(ctx, 0, 0); ok || err != nil {
		t.Fatalf("another set took a held member: %v, %v", ok, err)
	}
	if err := l.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	for _, k := range []struct {
		rdb  *redis.Client
		name string
	}{{rdb1, "a"}, {rdb2, "b"}, {rdb1, "c"}, {rdb2, "d"}} {
		wantHolders(t, k.rdb, k.name)
	}
	if !isClosed(l.Lost()) {
		t.Fatal("Lost is not closed after the last Unlock")
	}
	if err := l.Unlock(ctx); !errors.Is(err, ErrNotHeld) {
		t.Fatalf("Unlock of a set not held = %v, want ErrNotHeld", err)
	}
}

func TestMultiLockExcludesThroughItsMembers(t *testing.T) {
	_, _, c1, c2 := twoServers(t)
	ctx := ctxT(t)
	a, b := c1.NewMutex("a"), c2.NewMutex("b")
	l := NewMultiLock(a, b)
	wantCounts := func(n int) {
		t.Helper()
		for _, m := range []*Mutex{a, b} {
			if got, err := m.HoldCount(ctx); got != n || err != nil {
				t.Fatalf("%s HoldCount = %d, %v; want %d", m.Name(), got, err, n)
			}
		}
	}
	if ok, err := l.TryLock(ctx, 0, 0); !ok || err != nil {
		t.Fatalf("TryLock = %v, %v", ok, err)
	}
	if ok, err := l.TryLock(ctx, 0, 0); ok || err != nil {
		t.Fatalf("TryLock of the held set = %v, %v; want false", ok, err)
	}
	if err := a.Reenter(ctx); err != nil {
		t.Fatal(err)
	}
	if err := b.Reenter(ctx); err != nil {
		t.Fatal(err)
	}
	wantCounts(2)
	if err := l.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	wantCounts(1)
	for _, m := range []*Mutex{a, b} {
		if err := m.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
	}
	wantCounts(0)
}

func TestMultiLockIsAllOrNothing(t *testing.T) {
	for _, blocked := range []string{"a", "b", "c"} {
		for _, wait := range []time.Duration{0, 100 * time.Millisecond} {
			t.Run(fmt.Sprintf("%s held elsewhere, wait %v", blocked, wait), func(t *testing.T) {
				rdb1, rdb2, c1, c2 := twoServers(t)
				ctx := ctxT(t)
				// a and c on the first server, b on the second.
				rdbOf := map[string]*redis.Client{"a": rdb1, "b": rdb2, "c": rdb1}
				other := newClient(t, rdbOf[blocked]).NewMutex(blocked)
				if err := other.Lock(ctx); err != nil {
					t.Fatal(err)
				}
				l := NewMultiLock(c1.NewMutex("a"), c2.NewMutex("b"), c1.NewMutex("c"))
				start := time.Now()
				ok, err := l.TryLock(ctx, wait, 0)
				if ok || err != nil {
					t.Fatalf("TryLock = %v, %v; want false, nil", ok, err)
				}
				if took := time.Since(start); took < wait || took > wait+2*time.Second {
					t.Fatalf("TryLock gave up after %v, want about %v", took, wait)
				}
				for name, rdb := range rdbOf {
					if name == blocked {
						wantHolders(t, rdb, name, other.Owner())
					} else {
						wantHolders(t, rdb, name)
					}
				}
				if !isClosed(l.Lost()) {
					t.Fatal("Lost is not closed for a set not held")
				}
			})
		}
	}
}

func TestMultiLockWakesWhenTheLastBlockingMemberIsReleased(t *testing.T) {
	rdb1, rdb2, c1, c2 := twoServers(t)
	ctx := ctxT(t)
	// The blockers' leases (watchdog, 30s) outlast the set's wait (10s):
	// only the members' unlock messages can wake it in time.
	blockA, blockC := newClient(t, rdb1).NewMutex("a"), newClient(t, rdb2).NewMutex("c")
	// c's server runs a release first: the count below is of script runs,
	// and a server's first release loads its script (EVALSHA, then EVAL).
	if err := blockC.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	if err := blockC.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	for _, m := range []*Mutex{blockA, blockC} {
		if err := m.Lock(ctx); err != nil {
			t.Fatal(err)
		}
	}
	a, b, c := c1.NewMutex("a"), c1.NewMutex("b"), c2.NewMutex("c")
	l := NewMultiLock(c, b, a)
	type result struct {
		ok  bool
		err error
		at  time.Time
	}
	done := make(chan result, 1)
	go func() {
		ok, err := l.TryLock(ctx, 10*time.Second, 0)
		done <- result{ok, err, time.Now()}
	}()

	subscribed(t, rdb1, "a")
	if err := blockA.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	// In order: a, then b (free), then a wait on c, holding a and b.
	subscribed(t, rdb2, "c")
	wantHolders(t, rdb1, "a", a.Owner())
	wantHolders(t, rdb1, "b", b.Owner())
	before := evalCalls(t, rdb2)
	released := time.Now()
	if err := blockC.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	r := <-done
	if !r.ok || r.err != nil {
		t.Fatalf("TryLock = %v, %v", r.ok, r.err)
	}
	if took := r.at.Sub(released); took > 2*time.Second {
		t.Fatalf("set acquired %v after the release: not woken by it", took)
	}
	// The release, one retry after subscribing, the attempt it woke.
	if n := evalCalls(t, rdb2) - before; n > 3 {
		t.Fatalf("%d scripts ran on c's server while the set waited: polling", n)
	}
	wantHolders(t, rdb2, "c", c.Owner())
	if err := l.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestMultiLockSetsInOppositeOrdersNeverDeadlockOrOverlap(t *testing.T) {
	_, rdb2, _, _ := twoServers(t)
	rdb1 := srv.Client(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// Two processes, each with a Client on both servers. One set is given
	// as a, b, c, the other as d, c, a: they share a and c, in opposite
	// orders, on different servers.
	type process struct{ c1, c2 *Client }
	procs := []process{{newClient(t, rdb1), newClient(t, rdb2)}, {newClient(t, rdb1), newClient(t, rdb2)}}
	sets := []func(p process) *MultiLock{
		func(p process) *MultiLock {
			return NewMultiLock(p.c1.NewMutex("a"), p.c2.NewMutex("b"), p.c2.NewMutex("c"))
		},
		func(p process) *MultiLock {
			return NewMultiLock(p.c1.NewMutex("d"), p.c2.NewMutex("c"), p.c1.NewMutex("a"))
		},
	}
	var inUse sync.Map // name -> *atomic.Int32
	for _, n := range []string{"a", "b", "c", "d"} {
		inUse.Store(n, new(atomic.Int32))
	}
	enter := func(l *MultiLock, delta int32) error {
		for _, m := range l.members {
			v, _ := inUse.Load(m.Name())
			if n := v.(*atomic.Int32).Add(delta); n > 1 {
				return fmt.Errorf("%q held by %d sets at once", m.Name(), n)
			}
		}
		return nil
	}
	var g errgroup.Group
	var rounds atomic.Int64
	for _, p := range procs {
		for _, set := range sets {
			for range 3 {
				g.Go(func() error {
					l := set(p)
					for range 15 {
						if err := l.Lock(ctx); err != nil {
							return fmt.Errorf("Lock: %w", err)
						}
						err := enter(l, 1)
						_ = enter(l, -1)
						if err != nil {
							return err
						}
						rounds.Add(1)
						if err := l.Unlock(ctx); err != nil {
							return fmt.Errorf("Unlock: %w", err)
						}
					}
					return nil
				})
			}
		}
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d critical sections", rounds.Load())
}

func TestMultiLockEqualNamesOnTwoServersNeverDeadlock(t *testing.T) {
	_, rdb2, _, _ := twoServers(t)
	rdb1 := srv.Client(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// "x" on both servers: client ids, random per process, order the two.
	var inside atomic.Int32
	var g errgroup.Group
	for range 3 {
		c1, c2 := newClient(t, rdb1), newClient(t, rdb2)
		for range 2 {
			g.Go(func() error {
				l := NewMultiLock(c1.NewMutex("x"), c2.NewMutex("x"))
				for range 10 {
					if err := l.Lock(ctx); err != nil {
						return fmt.Errorf("Lock: %w", err)
					}
					if n := inside.Add(1); n != 1 {
						return fmt.Errorf("%d sets inside at once", n)
					}
					inside.Add(-1)
					if err := l.Unlock(ctx); err != nil {
						return fmt.Errorf("Unlock: %w", err)
					}
				}
				return nil
			})
		}
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
}
