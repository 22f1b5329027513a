package rlock

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"golang.org/x/sync/errgroup"

	"github.com/relock-go/relock/internal/keys"
	"github.com/relock-go/relock/test/testkit"
)

// masters returns go-redis clients of three independent redis-servers: the
// shared test server and two more.
func masters(t *testing.T) []*redis.Client {
	t.Helper()
	rdbs := []*redis.Client{newRedis(t)}
	for range 2 {
		rdbs = append(rdbs, quickRedis(t, extraServer(t).Addr))
	}
	return rdbs
}

// clientsOf returns a Client on each of rdbs: one process's view of the
// masters.
func clientsOf(t *testing.T, rdbs []*redis.Client, opts ...Option) []*Client {
	t.Helper()
	cs := make([]*Client, len(rdbs))
	for i, rdb := range rdbs {
		cs[i] = newClient(t, rdb, opts...)
	}
	return cs
}

// redLock returns a RedLock on name over one Mutex per Client, and the
// Mutexes.
func redLock(cs []*Client, name string) (*MultiLock, []*Mutex) {
	ms := make([]*Mutex, len(cs))
	members := make([]Member, len(cs))
	for i, c := range cs {
		ms[i] = c.NewMutex(name)
		members[i] = ms[i]
	}
	return NewRedLock(members...), ms
}

func TestRedLockHoldsEveryReachableMaster(t *testing.T) {
	rdbs := masters(t)
	ctx := ctxT(t)
	l, ms := redLock(clientsOf(t, rdbs), "red")
	if err := l.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	for i, rdb := range rdbs {
		wantHolders(t, rdb, "red", ms[i].Owner())
	}
	if err := l.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	for _, rdb := range rdbs {
		wantHolders(t, rdb, "red")
	}
}

func TestRedLockAcquiresWithOneMasterDown(t *testing.T) {
	for _, down := range []string{"stopped", "refusing"} {
		t.Run(down, func(t *testing.T) {
			rdbs := masters(t)
			ctx := ctxT(t)
			var unreachable *redis.Client
			switch down {
			case "stopped":
				unreachable = quickRedis(t, stoppedServer(t))
			case "refusing":
				// A proxy that resets every connection, before the
				// server that stays up behind it.
				p := testkit.StartProxy(t, rdbs[2].Options().Addr)
				p.RefuseNew(true)
				unreachable = quickRedis(t, p.Addr())
			}
			up := rdbs[:2]
			l, ms := redLock(clientsOf(t, append(up[:2:2], unreachable)), "red")
			start := time.Now()
			if ok, err := l.TryLock(ctx, time.Second, 0); !ok || err != nil {
				t.Fatalf("TryLock with 2 of 3 masters = %v, %v", ok, err)
			}
			t.Logf("acquired in %v", time.Since(start))
			for i, rdb := range up {
				wantHolders(t, rdb, "red", ms[i].Owner())
			}
			if err := l.Unlock(ctx); err != nil {
				t.Fatalf("Unlock = %v; the unreachable member was never held", err)
			}
			for _, rdb := range rdbs {
				wantHolders(t, rdb, "red")
			}
		})
	}
}

func TestRedLockFailsWithTwoMastersDownAndHoldsNothing(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	cs := clientsOf(t, []*redis.Client{rdb, quickRedis(t, stoppedServer(t)), quickRedis(t, stoppedServer(t))})
	l, _ := redLock(cs, "red")
	start := time.Now()
	ok, err := l.TryLock(ctx, 5*time.Second, 0)
	if ok || err == nil {
		t.Fatalf("TryLock with 1 of 3 masters = %v, %v; want an error", ok, err)
	}
	t.Logf("TryLock: %v", err)
	if took := time.Since(start); took > 3*time.Second {
		t.Fatalf("TryLock took %v: a lost quorum is not worth waiting for", took)
	}
	wantHolders(t, rdb, "red")
	if err := l.Lock(ctx); err == nil {
		t.Fatal("Lock with 1 of 3 masters succeeded")
	}
	wantHolders(t, rdb, "red")
}

func TestRedLockWaitsForAMajorityThroughPubSub(t *testing.T) {
	rdbs := masters(t)
	ctx := ctxT(t)
	// Another process holds two of the three masters, with a lease (30s)
	// that outlasts the wait (10s).
	other := clientsOf(t, rdbs)
	blockers := []*Mutex{other[0].NewMutex("red"), other[2].NewMutex("red")}
	for _, m := range blockers {
		if err := m.Lock(ctx); err != nil {
			t.Fatal(err)
		}
	}
	l, ms := redLock(clientsOf(t, rdbs), "red")
	if ok, err := l.TryLock(ctx, 0, 0); ok || err != nil {
		t.Fatalf("TryLock(0) against a majority held = %v, %v", ok, err)
	}
	wantHolders(t, rdbs[1], "red")

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
	ch := keys.Channel("red")
	eventually(t, 5*time.Second, "a waiter on a held master", func() bool {
		return rdbs[0].PubSubNumSub(ctx, ch).Val()[ch]+rdbs[2].PubSubNumSub(ctx, ch).Val()[ch] == 1
	})
	// Holding nothing while it waits.
	wantHolders(t, rdbs[1], "red")
	released := time.Now()
	for _, m := range blockers {
		if err := m.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
	}
	r := <-done
	if !r.ok || r.err != nil {
		t.Fatalf("TryLock = %v, %v", r.ok, r.err)
	}
	if took := r.at.Sub(released); took > 2*time.Second {
		t.Fatalf("acquired %v after the release: not woken by it", took)
	}
	// A majority at least: the second release may come after the round.
	ours := 0
	for i, rdb := range rdbs {
		if _, ok := holders(t, rdb, "red")[ms[i].Owner()]; ok {
			ours++
		}
	}
	if ours < 2 {
		t.Fatalf("acquired with %d of 3 masters", ours)
	}
	if err := l.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	for _, rdb := range rdbs {
		wantHolders(t, rdb, "red")
	}
}

func TestRedLocksUnderContentionNeverOverlap(t *testing.T) {
	rdbs := masters(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var inside atomic.Int32
	var rounds atomic.Int64
	var g errgroup.Group
	for range 3 { // processes
		cs := clientsOf(t, rdbs)
		for range 3 {
			g.Go(func() error {
				l, _ := redLock(cs, "red")
				for range 10 {
					if err := l.Lock(ctx); err != nil {
						return fmt.Errorf("Lock: %w", err)
					}
					if n := inside.Add(1); n != 1 {
						return fmt.Errorf("%d holders at once", n)
					}
					inside.Add(-1)
					rounds.Add(1)
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
	for _, rdb := range rdbs {
		wantHolders(t, rdb, "red")
	}
	t.Logf("%d critical sections", rounds.Load())
}

func TestRedLockLostWhenAMajorityIsGone(t *testing.T) {
	rdbs := masters(t)
	ctx := ctxT(t)
	// Renewals every 100ms notice a force-unlock quickly.
	l, ms := redLock(clientsOf(t, rdbs, WithWatchdogTimeout(300*time.Millisecond)), "red")
	if err := l.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	lost := l.Lost()
	forceUnlock := func(i int) {
		t.Helper()
		if ok, err := ms[i].ForceUnlock(ctx); !ok || err != nil {
			t.Fatalf("ForceUnlock = %v, %v", ok, err)
		}
		select {
		case <-ms[i].Lost():
		case <-time.After(5 * time.Second):
			t.Fatal("member's Lost not closed")
		}
	}
	forceUnlock(0)
	select {
	case <-lost:
		t.Fatal("Lost closed with 2 of 3 members held")
	default:
	}
	forceUnlock(1)
	select {
	case <-lost:
	case <-time.After(5 * time.Second):
		t.Fatal("Lost not closed with 1 of 3 members held")
	}
	err := l.Unlock(ctx)
	if !errors.Is(err, ErrNotHeld) {
		t.Fatalf("Unlock = %v, want ErrNotHeld for the lost members", err)
	}
	for _, rdb := range rdbs {
		wantHolders(t, rdb, "red")
	}
}
