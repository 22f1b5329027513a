package rlock

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/test/redistest"
	"github.com/relock-go/relock/test/testkit"
)

// The last Unlock passes the lock to a waiter of the same Client: the
// waiter holds it with its own lease, once, having made no attempt after
// its first.
func TestUnlockHandsTheLockToAWaiterOfItsClient(t *testing.T) {
	rec := newRecorder()
	rdb := newRedis(t)
	ctx := ctxT(t)
	c := newClient(t, rdb, WithObserver(rec))
	const name, lease = "handoff", 5 * time.Second
	holder, waiter := c.NewMutex(name), c.NewMutex(name)
	if err := holder.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	locked := make(chan error, 1)
	go func() { locked <- waiter.LockWithLease(ctx, lease) }()
	eventually(t, 5*time.Second, "the waiter asleep", func() bool { return hubOf(c).Stats().Sleeping == 1 })
	if err := holder.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-locked; err != nil {
		t.Fatal(err)
	}
	e := rec.await(t, EventAcquired, func(e Event) bool { return e.Owner == waiter.Owner() })
	// Two attempts: the first, and the retry once listening.
	if !e.Granted || e.Attempts != 2 || e.Lease != lease || e.Watchdog || e.Count != 1 {
		t.Errorf("acquired: granted %v, attempts %d, lease %v, watchdog %v, count %d; want a hand-off after 2 attempts, lease %v, no watchdog, count 1",
			e.Granted, e.Attempts, e.Lease, e.Watchdog, e.Count, lease)
	}
	if n, err := waiter.HoldCount(ctx); err != nil || n != 1 {
		t.Fatalf("waiter's hold count in Redis = %d, %v; want 1", n, err)
	}
	if ttl, _ := waiter.TTL(ctx); ttl <= 0 || ttl > lease {
		t.Fatalf("TTL = %v, want the waiter's lease %v at most", ttl, lease)
	}
	if err := holder.Unlock(ctx); !errors.Is(err, ErrNotHeld) {
		t.Fatalf("the old holder's second Unlock: %v, want ErrNotHeld", err)
	}
	if err := waiter.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	if n := rdb.Exists(ctx, name).Val(); n != 0 {
		t.Fatal("the lock is still there after the waiter's Unlock")
	}
}

// A lock passed to a wait that then ends without it (its ctx, its
// deadline) is released at once: nobody is left holding it.
func TestLockHandedToAnEndedWaitIsReleased(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	c := newClient(t, rdb)
	const name = "handoff-ended"
	holder, waiter := c.NewMutex(name), c.NewMutex(name)
	if err := holder.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	// The turn of a wait, listening, as the wait loop leaves it between
	// two attempts.
	turn := waiter.turns.start(&waiter.owner, 0).(*clientTurn)
	p := progress{c: c, t: turn}
	if ok, err := p.ready(ctx, turn.next(outcome{ttl: time.Minute}), noDeadline); !ok {
		t.Fatal(err)
	}
	if err := holder.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	if n, _ := waiter.HoldCount(ctx); n != 1 {
		t.Fatalf("the waiter's hold count after the Unlock = %d, want 1: passed on", n)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	turn.done(cancelled, false)
	if n := rdb.Exists(ctx, name).Val(); n != 0 {
		t.Fatal("the lock passed to an ended wait is still held")
	}
	if waiter.currentHold() != nil {
		t.Fatal("the owner of the ended wait still has a hold")
	}
}

// A Client that keeps passing the lock among its own goroutines still lets
// another Client's waiter have it soon: it publishes once it has had more
// than its share, and after maxKept releases in a row at the latest.
func TestHandOffsLeaveOtherClientsTheirTurn(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	busy, other := newClient(t, rdb), newClient(t, rdb)
	const name = "handoff-share"
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var rounds atomic.Int64
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m := busy.NewMutex(name)
			for {
				select {
				case <-stop:
					return
				default:
				}
				if err := m.Lock(ctx); err != nil {
					// Who held the lock, and who waited where.
					info, ierr := busy.Inspect(context.WithoutCancel(ctx), name)
					t.Errorf("%v; the lock: %+v (%v); busy: %+v; other: %+v", err, info, ierr, busy.Activity(), other.Activity())
					return
				}
				rounds.Add(1)
				if err := m.Unlock(ctx); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	defer wg.Wait()
	defer close(stop)
	eventually(t, 5*time.Second, "the busy Client passing the lock on", func() bool { return rounds.Load() > 100 })
	start := rounds.Load()
	// The watchdog's lease is 30 s: a waiter left asleep until then would
	// fail this bound.
	wctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	m := other.NewMutex(name)
	if err := m.Lock(wctx); err != nil {
		t.Fatalf("the other Client's waiter, after %d rounds of the busy one: %v", rounds.Load()-start, err)
	}
	if err := m.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
}

// After maxKept releases passed on in a row, one is published, so that
// waiters that poll instead of listening find the lock free now and then.
func TestHandOffsPublishOnceInAWhile(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	c := newClient(t, rdb)
	const waiters = maxKept + 2
	holder, acquired := heldWithWaiters(t, c, "handoff-cap", waiters)
	publishes := func() int64 {
		calls, err := redistest.CommandCalls(ctx, rdb)
		if err != nil {
			t.Fatal(err)
		}
		return calls["publish"]
	}
	before := publishes()
	for range maxKept + 1 {
		if err := holder.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
		holder = <-acquired
		eventually(t, 5*time.Second, "the others asleep again", func() bool {
			return hubOf(c).Stats().Sleeping == hubOf(c).Stats().Subscriptions
		})
	}
	if n := publishes() - before; n != 1 {
		t.Fatalf("%d releases published %d messages, want 1: the one after %d passed on", maxKept+1, n, maxKept)
	}
	for range waiters - maxKept - 1 {
		if err := holder.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
		holder = <-acquired
	}
	if err := holder.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
}

// An owner that unlocks and locks again at once, while a waiter of another
// Client was woken by that unlock, lets the waiter take the lock first
// instead of winning it back before the waiter's retry arrives. The
// waiter's Client reaches Redis through a proxy that adds 50 µs each way,
// as a Client on another host would: the owner, nearer and awake, would
// win nearly every round without the step aside.
func TestRelockLetsTheWokenWaiterOfAnotherClientGoFirst(t *testing.T) {
	rdb := newRedis(t)
	p := testkit.StartProxy(t, rdb.Options().Addr)
	p.SetLatency(50 * time.Microsecond)
	far := redis.NewClient(&redis.Options{Addr: p.Addr()})
	t.Cleanup(func() { _ = far.Close() })
	assertWokenWaiterGoesFirst(t, newClient(t, rdb), newClient(t, far), "step-aside")
}

// Timing decides each round of assertWokenWaiterGoesFirst, so the test
// counts them. Measured on a 2-core machine under -race, 400 rounds a run,
// three runs idle and three beside two busy loops: the woken waiter went
// first in 39 to 52% of the rounds, and without the step aside in 0 to
// 1.25% (14 of 2400). Of stepAsideRounds rounds it must go first in at
// least minWaiterFirst: by the binomial law a run without the step aside
// passes with a probability below 2e-5 even at 3% a round, and a run with
// it fails with a probability below 1e-6 at 30% a round (1e-4 at 25%).
// (Without the proxy, the waiter's retry and the owner's are a few
// microseconds apart either way, and the waiter went first in 64% of the
// rounds without the step aside, in 85% with it.)
const (
	stepAsideRounds = 120
	minWaiterFirst  = 14
)

// assertWokenWaiterGoesFirst plays stepAsideRounds rounds in which an
// owner of a unlocks while an owner of b waits, then locks again at once,
// and fails unless the waiter of b goes first in at least minWaiterFirst.
func assertWokenWaiterGoesFirst(t *testing.T, a, b *Client, name string) {
	t.Helper()
	ctx := ctxT(t)
	const rounds = stepAsideRounds
	releaser, waiter := a.NewMutex(name), b.NewMutex(name)
	if err := releaser.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	waiterFirst := 0
	for range rounds {
		got := make(chan error, 1)
		go func() { got <- waiter.Lock(ctx) }()
		eventually(t, 5*time.Second, "the waiter asleep", func() bool { return hubOf(b).Stats().Sleeping == 1 })
		if err := releaser.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
		relocked := make(chan error, 1)
		go func() { relocked <- releaser.Lock(ctx) }()
		select {
		case err := <-got:
			if err != nil {
				t.Fatal(err)
			}
			waiterFirst++
			if err := waiter.Unlock(ctx); err != nil {
				t.Fatal(err)
			}
			if err := <-relocked; err != nil {
				t.Fatal(err)
			}
		case err := <-relocked:
			if err != nil {
				t.Fatal(err)
			}
			if err := releaser.Unlock(ctx); err != nil {
				t.Fatal(err)
			}
			if err := <-got; err != nil {
				t.Fatal(err)
			}
			if err := waiter.Unlock(ctx); err != nil {
				t.Fatal(err)
			}
			if err := releaser.Lock(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
	t.Logf("%s: woken waiter first in %d of %d rounds", name, waiterFirst, rounds)
	if waiterFirst < minWaiterFirst {
		t.Fatalf("%s: the woken waiter went first in %d of %d rounds, want at least %d", name, waiterFirst, rounds, minWaiterFirst)
	}
	if err := releaser.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
}
