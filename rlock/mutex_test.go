package rlock

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"golang.org/x/sync/errgroup"

	"github.com/relock-go/relock/internal/keys"
	"github.com/relock-go/relock/internal/leakcheck"
	"github.com/relock-go/relock/internal/redistest"
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
		if held, _ := other.IsHeld(ctx); held {
			t.Errorf("%s: IsHeld true for a non-owner", name)
		}
	}
	if n, _ := holder.HoldCount(ctx); n != 1 {
		t.Fatalf("non-owner unlocks changed the holder's count to %d", n)
	}
	if locked, _ := holder.IsLocked(ctx); !locked {
		t.Fatal("IsLocked false while held")
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

func TestWaiterWakesOnUnlockWithoutPolling(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	holder := newClient(t, rdb).NewMutex("wake")
	waiterClient := newClient(t, rdb)
	// The holder's lease (watchdog, 30s) is far longer than the test: only
	// the unlock message can wake the waiter in time.
	if err := holder.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	acquired := make(chan time.Time, 1)
	go func() {
		if err := waiterClient.NewMutex("wake").Lock(ctx); err != nil {
			t.Error(err)
		}
		acquired <- time.Now()
	}()
	channel := keys.Channel("wake")
	eventually(t, 5*time.Second, "waiter subscribed", func() bool {
		return rdb.PubSubNumSub(ctx, channel).Val()[channel] == 1
	})
	before := evalCalls(t, rdb)
	select {
	case <-acquired:
		t.Fatal("waiter acquired a held lock")
	case <-time.After(300 * time.Millisecond): // time is the subject: nothing may happen
	}
	// After subscribing the waiter makes one more attempt, then sleeps.
	if polled := evalCalls(t, rdb) - before; polled > 1 {
		t.Fatalf("waiter ran %d scripts in 300ms while the lock was held: polling", polled)
	}

	unlocked := time.Now()
	if err := holder.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case at := <-acquired:
		t.Logf("hand-off %v after unlock", at.Sub(unlocked))
	case <-time.After(5 * time.Second):
		t.Fatal("waiter not woken by the unlock")
	}
	eventually(t, 5*time.Second, "subscription released", func() bool {
		return rdb.PubSubNumSub(ctx, channel).Val()[channel] == 0
	})
}

// evalCalls is the number of script calls the server has run.
func evalCalls(t *testing.T, rdb redis.UniversalClient) int64 {
	t.Helper()
	calls, err := redistest.CommandCalls(context.Background(), rdb)
	if err != nil {
		t.Fatal(err)
	}
	return calls["evalsha"] + calls["eval"]
}

// An Unlock passes the lock to a waiter of its own Client in the release
// script: one script per hand-off, and nobody else retries.
func TestUnlockPassesTheLockOnInOneScript(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	c := newClient(t, rdb)
	const waiters = 6
	holder, acquired := heldWithWaiters(t, c, "herd", waiters)
	for range waiters {
		before := evalCalls(t, rdb)
		if err := holder.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
		holder = <-acquired
		eventually(t, 5*time.Second, "the others asleep again", func() bool {
			return hubOf(c).Stats().Sleeping == hubOf(c).Stats().Waiters
		})
		// The unlock alone: the waiter it passed the lock to made no
		// attempt, and nobody else retried.
		if n := evalCalls(t, rdb) - before; n != 1 {
			t.Fatalf("one hand-off ran %d scripts, want 1 (the unlock)", n)
		}
	}
	if err := holder.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
}

// heldWithWaiters locks name with a new Mutex of c and starts n more that
// wait for it, each sent on acquired once it holds the lock; it returns
// once all n are asleep.
func heldWithWaiters(t *testing.T, c *Client, name string, n int) (holder *Mutex, acquired <-chan *Mutex) {
	t.Helper()
	ctx := ctxT(t)
	holder = c.NewMutex(name)
	if err := holder.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	got := make(chan *Mutex, n)
	for range n {
		go func() {
			m := c.NewMutex(name)
			if err := m.Lock(ctx); err != nil {
				t.Error(err)
			}
			got <- m
		}()
	}
	eventually(t, 5*time.Second, "all waiters asleep", func() bool { return hubOf(c).Stats().Sleeping == n })
	return holder, got
}

func TestFixedLeaseExpires(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	c := newClient(t, rdb)
	m := c.NewMutex("lease")
	const lease = 200 * time.Millisecond
	if err := m.LockWithLease(ctx, lease); err != nil {
		t.Fatal(err)
	}
	if ttl, _ := m.TTL(ctx); ttl <= 0 || ttl > lease {
		t.Fatalf("TTL = %v, want in (0, %v]", ttl, lease)
	}
	lost := m.Lost()
	// Expiry publishes nothing: the other owner wakes after the lock's TTL.
	other := newClient(t, rdb).NewMutex("lease")
	start := time.Now()
	ok, err := other.TryLock(ctx, 5*time.Second, time.Second)
	if !ok || err != nil {
		t.Fatalf("TryLock after expiry = %v, %v", ok, err)
	}
	if waited := time.Since(start); waited > 2*time.Second {
		t.Fatalf("acquired %v after a %v lease expired, want about the lease", waited, lease)
	}
	select {
	case <-lost:
	case <-time.After(time.Second):
		t.Fatal("Lost not closed after the lease ran out")
	}
	if err := m.Unlock(ctx); !errors.Is(err, ErrNotHeld) {
		t.Fatalf("Unlock after expiry = %v, want ErrNotHeld", err)
	}
}

func TestPartialUnlockRearmsLease(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	m := newClient(t, rdb).NewMutex("rearm")
	const lease = 2 * time.Second
	if err := m.LockWithLease(ctx, lease); err != nil {
		t.Fatal(err)
	}
	if err := m.Reenter(ctx); err != nil {
		t.Fatal(err)
	}
	// Shorten the TTL behind the library's back; a partial unlock must put
	// the hold's lease back.
	rdb.PExpire(ctx, "rearm", 100*time.Millisecond)
	if err := m.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	if ttl, _ := m.TTL(ctx); ttl < lease-500*time.Millisecond {
		t.Fatalf("TTL after partial unlock = %v, want about %v", ttl, lease)
	}
}

func TestWatchdogKeepsLockUntilClose(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	const lease = 300 * time.Millisecond
	c := newClient(t, rdb, WithWatchdogTimeout(lease))
	m := c.NewMutex("dog")
	if err := m.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	other := newClient(t, rdb).NewMutex("dog")
	// Time is the subject: the lock must outlive several leases.
	ok, err := other.TryLock(ctx, 4*lease, time.Second)
	if ok || err != nil {
		t.Fatalf("lock taken over after %v despite the watchdog: %v, %v", 4*lease, ok, err)
	}
	select {
	case <-m.Lost():
		t.Fatal("Lost closed while the watchdog renewed the lock")
	default:
	}
	if n, _ := m.HoldCount(ctx); n != 1 {
		t.Fatalf("HoldCount = %d after renewals, want 1", n)
	}

	lost := m.Lost()
	closed := time.Now()
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-lost:
	default:
		t.Fatal("Close did not close Lost")
	}
	// Close does not unlock: the lock expires within one lease.
	if ok, _ := other.TryLock(ctx, 0, time.Second); ok {
		t.Fatal("Close unlocked the lock")
	}
	ok, err = other.TryLock(ctx, 5*time.Second, time.Second)
	if !ok || err != nil {
		t.Fatalf("TryLock after Close = %v, %v", ok, err)
	}
	if d := time.Since(closed); d > lease+time.Second {
		t.Fatalf("lock freed %v after Close, want within the %v lease", d, lease)
	}
}

func TestLostWhenLockDisappears(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	c := newClient(t, rdb, WithWatchdogTimeout(300*time.Millisecond))
	m := c.NewMutex("lost")
	if !isClosed(m.Lost()) {
		t.Fatal("Lost of an unheld Mutex is not closed")
	}
	if err := m.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	if ok, err := c.NewMutex("lost").ForceUnlock(ctx); !ok || err != nil {
		t.Fatalf("ForceUnlock = %v, %v", ok, err)
	}
	select {
	case <-m.Lost():
	case <-time.After(2 * time.Second):
		t.Fatal("Lost not closed within a renewal period of the lock vanishing")
	}
	if err := m.Unlock(ctx); !errors.Is(err, ErrNotHeld) {
		t.Fatalf("Unlock of a lost lock = %v, want ErrNotHeld", err)
	}
	// The Mutex can be locked again afterwards, with a fresh hold.
	if err := m.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case <-m.Lost():
		t.Fatal("the new hold reports lost")
	default:
	}
}

func TestForceUnlockWakesWaiter(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	c := newClient(t, rdb)
	if err := c.NewMutex("force").Lock(ctx); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- newClient(t, rdb).NewMutex("force").Lock(ctx) }()
	eventually(t, 5*time.Second, "waiter subscribed", func() bool {
		return rdb.PubSubNumSub(ctx, keys.Channel("force")).Val()[keys.Channel("force")] == 1
	})
	if ok, err := c.NewMutex("force").ForceUnlock(ctx); !ok || err != nil {
		t.Fatalf("ForceUnlock = %v, %v", ok, err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("waiter not woken by ForceUnlock")
	}
	if ok, _ := c.NewMutex("none").ForceUnlock(ctx); ok {
		t.Fatal("ForceUnlock of a free lock reported true")
	}
}

func TestCancelledWaitLeavesNoSubscription(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	c := newClient(t, rdb)
	if err := c.NewMutex("cancel").Lock(ctx); err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- c.NewMutex("cancel").Lock(wctx) }()
	channel := keys.Channel("cancel")
	eventually(t, 5*time.Second, "waiter subscribed", func() bool {
		return rdb.PubSubNumSub(ctx, channel).Val()[channel] == 1
	})
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Lock = %v, want context.Canceled", err)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("Lock did not return after its context was cancelled")
	}
	eventually(t, 5*time.Second, "channel unsubscribed", func() bool {
		return rdb.PubSubNumSub(ctx, channel).Val()[channel] == 0 && hubOf(c).Stats().Channels == 0
	})

	// A context cancelled before the call returns at once.
	if ok, err := c.NewMutex("cancel").TryLock(wctx, time.Minute, 0); ok || !errors.Is(err, context.Canceled) {
		t.Fatalf("TryLock with a cancelled context = %v, %v", ok, err)
	}
}

func TestScriptFlushDoesNotBreakLocks(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	const lease = 300 * time.Millisecond
	c := newClient(t, rdb, WithWatchdogTimeout(lease))
	m := c.NewMutex("flush")
	if err := m.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	if err := rdb.ScriptFlush(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	// Renewals must reload the script: the lock outlives several leases.
	time.Sleep(4 * lease) // time is the subject
	select {
	case <-m.Lost():
		t.Fatal("watchdog lost the lock after SCRIPT FLUSH")
	default:
	}
	for _, step := range []func() error{
		func() error { rdb.ScriptFlush(ctx); return m.Reenter(ctx) },
		func() error { rdb.ScriptFlush(ctx); return m.Unlock(ctx) },
		func() error { rdb.ScriptFlush(ctx); return m.Unlock(ctx) },
	} {
		if err := step(); err != nil {
			t.Fatalf("after SCRIPT FLUSH: %v", err)
		}
	}
	if rdb.Exists(ctx, "flush").Val() != 0 {
		t.Fatal("lock not released")
	}
}

func TestWaitersSurviveKilledSubscriptionConnection(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	holder := newClient(t, rdb).NewMutex("kill")
	if err := holder.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	c := newClient(t, rdb, WithHealthCheck(time.Second))
	const waiters = 3
	done := make(chan error, waiters)
	for range waiters {
		go func() {
			m := c.NewMutex("kill")
			err := m.Lock(ctx)
			if err == nil {
				err = m.Unlock(ctx)
			}
			done <- err
		}()
	}
	channel := keys.Channel("kill")
	eventually(t, 5*time.Second, "waiters asleep", func() bool {
		return hubOf(c).Stats().Waiters == waiters && rdb.PubSubNumSub(ctx, channel).Val()[channel] == 1
	})
	if err := rdb.ClientKillByFilter(ctx, "TYPE", "pubsub").Err(); err != nil {
		t.Fatal(err)
	}
	// Unlock at once: the message may be published while no connection
	// listens; waiters must still acquire promptly, not after the 30s lease.
	if err := holder.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	for range waiters {
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("waiters stuck after the subscription connection was killed")
		}
	}
}

func TestCloseStopsWaitersAndGoroutines(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	base := len(leakcheck.Blocked())
	for _, spin := range []bool{false, true} {
		t.Run(fmt.Sprintf("spin=%v", spin), func(t *testing.T) {
			var opts []Option
			if spin {
				opts = append(opts, WithSpin(ConstantBackoff(10*time.Millisecond)))
			}
			c, err := New(rdb, append(opts, WithWatchdogTimeout(300*time.Millisecond))...)
			if err != nil {
				t.Fatal(err)
			}
			name := fmt.Sprintf("close-%v", spin)
			if err := c.NewMutex(name).Lock(ctx); err != nil {
				t.Fatal(err)
			}
			before := evalCalls(t, rdb)
			done := make(chan error, 1)
			go func() { done <- c.NewMutex(name).Lock(ctx) }()
			// Close while the waiter is waiting: asleep on its subscription,
			// or between attempts of its spin.
			eventually(t, 5*time.Second, "waiter waiting", func() bool {
				if spin {
					return evalCalls(t, rdb)-before >= 2
				}
				return hubOf(c).Stats().Sleeping == 1
			})
			if err := c.Close(); err != nil {
				t.Fatal(err)
			}
			select {
			case err := <-done:
				if !errors.Is(err, ErrClosed) {
					t.Fatalf("blocked Lock after Close = %v, want ErrClosed", err)
				}
			case <-time.After(2 * time.Second):
				t.Fatal("blocked Lock did not return after Close")
			}
			if gs := leakcheck.Blocked(); len(gs) > base {
				t.Fatalf("%d library goroutines outlive Close:\n%s", len(gs)-base, strings.Join(gs, "\n\n"))
			}
			m := c.NewMutex(name)
			if err := m.Lock(ctx); !errors.Is(err, ErrClosed) {
				t.Fatalf("Lock after Close = %v, want ErrClosed", err)
			}
			if err := m.Unlock(ctx); !errors.Is(err, ErrClosed) {
				t.Fatalf("Unlock after Close = %v, want ErrClosed", err)
			}
			if _, err := m.HoldCount(ctx); !errors.Is(err, ErrClosed) {
				t.Fatalf("HoldCount after Close = %v, want ErrClosed", err)
			}
			if err := c.Close(); err != nil {
				t.Fatalf("second Close = %v", err)
			}
		})
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
	if held, _ := m.IsLocked(ctx); held {
		t.Error("bad input took the lock")
	}
	// A key of another type is reported, not overwritten.
	rdb.Set(ctx, "string-key", "v", 0)
	if err := c.NewMutex("string-key").Lock(ctx); err == nil || !strings.Contains(err.Error(), "WRONGTYPE") {
		t.Errorf("Lock on a string key = %v, want WRONGTYPE", err)
	}
}

func second[T any](_ T, err error) error { return err }

func TestContentionKeepsReadModifyWriteExact(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	const clients, goroutines, rounds = 3, 4, 25
	var g errgroup.Group
	for range clients {
		// Each Client has its own connection pool, as separate processes would.
		own := srv.Client(t)
		c := newClient(t, own)
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
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		if err := c.NewMutex("spin").Lock(ctx); err != nil {
			t.Error(err)
		}
	}()
	before := evalCalls(t, rdb)
	time.Sleep(200 * time.Millisecond) // time is the subject: count retries
	if polled := evalCalls(t, rdb) - before; polled < 3 {
		t.Fatalf("spinning waiter ran %d scripts in 200ms, want several", polled)
	}
	if err := holder.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
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

func TestWaitersOfOneClientAcquireInArrivalOrder(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	holder := newClient(t, rdb).NewMutex("turns")
	if err := holder.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	c := newClient(t, rdb)
	const waiters = 5
	order := make(chan int, waiters)
	var wg sync.WaitGroup
	defer wg.Wait()
	for i := range waiters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m := c.NewMutex("turns")
			if err := m.Lock(ctx); err != nil {
				t.Error(err)
				return
			}
			order <- i
			if err := m.Unlock(ctx); err != nil {
				t.Error(err)
			}
		}()
		eventually(t, 5*time.Second, "waiter asleep", func() bool { return hubOf(c).Stats().Sleeping == i+1 })
	}
	if err := holder.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	for want := range waiters {
		select {
		case got := <-order:
			if got != want {
				t.Fatalf("waiter %d acquired in turn %d", got, want)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("hand-offs stalled")
		}
	}
}

func TestOwnerThatUnlocksQueuesBehindItsClientsWaiters(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	c := newClient(t, rdb)
	releaser := c.NewMutex("again")
	if err := releaser.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	got := make(chan string, 2)
	var wg sync.WaitGroup
	defer wg.Wait()
	wg.Add(1)
	go func() {
		defer wg.Done()
		m := c.NewMutex("again")
		if err := m.Lock(ctx); err == nil {
			got <- "waiter"
			m.Unlock(ctx)
		}
	}()
	eventually(t, 5*time.Second, "waiter asleep", func() bool { return hubOf(c).Stats().Sleeping == 1 })
	if err := releaser.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	// Locking again at once, the releaser would usually win the race; it
	// waits its turn instead.
	if err := releaser.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	got <- "releaser"
	if first := <-got; first != "waiter" {
		t.Fatalf("%s acquired first, want the waiter that was asleep", first)
	}
}
