package chaos

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/relock-go/relock/rlock"
	"github.com/relock-go/relock/test/eventlog"
	"github.com/relock-go/relock/test/testkit"
	"github.com/relock-go/relock/test/testkit/lockkit"
)

// timerSlack is how late a timer may fire on a loaded machine under the
// race detector.
const timerSlack = 250 * time.Millisecond

// acquireAsync starts h.Lock and reports when it returned.
func acquireAsync(ctx context.Context, h handle) <-chan error {
	done := make(chan error, 1)
	go func() { done <- h.Lock(ctx) }()
	return done
}

// acquiredAfter is how another owner's Lock ended, and whether the
// holder's Lost was closed by then.
type acquiredAfter struct {
	err       error
	lostFirst bool
}

// acquireAfterLost starts h.Lock and reports how it ended, and whether
// lost was closed when it returned. Lock returns only after Redis granted
// h the lock, which Redis does not before the hold whose Lost is lost has
// ended: Lost must be closed by then.
func acquireAfterLost(ctx context.Context, h handle, lost <-chan struct{}) <-chan acquiredAfter {
	done := make(chan acquiredAfter, 1)
	go func() {
		err := h.Lock(ctx)
		done <- acquiredAfter{err, testkit.Closed(lost)}
	}()
	return done
}

func TestHolderCutOffFromRedisIsToldByLeaseEnd(t *testing.T) {
	const lease = 600 * time.Millisecond
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			fresh(t)
			// A loaded machine may delay a renewal past the short lease
			// while Redis is still reachable: the holder's Lost closes then,
			// rightly, and proves nothing about a cut, so the test is tried
			// again.
			const tries = 3
			for try := 1; !cutOff(t, k, lease, fmt.Sprintf("cut-off-%d", try)); try++ {
				if try == tries {
					t.Fatalf("Lost fired while Redis was reachable in each of %d tries: the watchdog does not keep a %v lease", tries, lease)
				}
				t.Logf("the holder's %v lease lapsed while Redis was reachable (a renewal came late: the machine is loaded); trying again", lease)
			}
		})
	}
}

// cutOff holds name with owner a of kind k past several leases, then cuts
// a off from Redis: a's Lost must close before another owner, b, takes the
// lock, and not before the lease granted by a's last renewal could end.
// It reports false, having proven nothing, when a's hold lapsed while
// Redis was still reachable.
func cutOff(t *testing.T, k kind, lease time.Duration, name string) bool {
	ctx := testkit.Ctx(t, within)
	p := testkit.StartProxy(t, srv.Addr)
	events := eventlog.New[rlock.Event]()
	a := k.new(lockkit.NewClient(t, proxied(t, p, 0), rlock.WithWatchdogTimeout(lease), rlock.WithObserver(rlock.ObserverFunc(events.Add))), name)
	b := k.new(lockkit.NewClient(t, direct(t), rlock.WithWatchdogTimeout(lease)), name)
	if err := a.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	lost := a.Lost()
	// Renewals keep the lock past its first lease.
	select {
	case <-time.After(2 * lease):
	case <-lost:
		return false
	}

	p.BlackHole(true)
	bDone := acquireAfterLost(ctx, b, lost)
	lostWithin(t, lost, within, "holder cut off from Redis")
	// Lost closes a margin (1% of the lease and 2 ms) before the lease
	// the last successful renewal set, reckoned from when it was sent:
	// never sooner, however late the renewals came.
	var lastSent time.Time
	for _, e := range events.Matching(func(e rlock.Event) bool { return e.Type == rlock.EventRenewed }) {
		lastSent = e.Time.Add(-e.Latency)
	}
	lostAt := events.Await(t, "lost", func(e rlock.Event) bool { return e.Type == rlock.EventLost }).Time
	if earliest := lastSent.Add(lease - lease/100 - 2*time.Millisecond - time.Millisecond); lastSent.IsZero() || lostAt.Before(earliest) {
		t.Fatalf("Lost fired at %v, before the lease set by the last renewal (sent %v) could end (%v)", lostAt, lastSent, earliest)
	}
	select {
	case got := <-bDone:
		if got.err != nil {
			t.Fatalf("other owner's Lock: %v", got.err)
		}
		if !got.lostFirst {
			t.Fatal("another owner acquired the lock while the cut-off holder's Lost was still open")
		}
	case <-time.After(lease + within):
		t.Fatal("the lock did not pass to another owner after the cut-off holder's lease")
	}

	p.BlackHole(false)
	if err := a.Unlock(ctx); !errors.Is(err, rlock.ErrNotHeld) {
		t.Fatalf("cut-off holder's Unlock after recovery = %v, want ErrNotHeld", err)
	}
	if held, err := b.IsHeld(ctx); err != nil || !held {
		t.Fatalf("new owner IsHeld = %v, %v after the old holder's Unlock", held, err)
	}
	if err := b.Unlock(ctx); err != nil {
		t.Fatalf("new owner's Unlock: %v", err)
	}
	return true
}

func TestFixedLeaseLostBeforeAnotherOwnerAcquires(t *testing.T) {
	// A slow link to Redis: the lease starts when Redis runs the acquire,
	// and the holder learns of it one latency later. Lost must still fire
	// no later than Redis expires the lock.
	const lease, latency = 400 * time.Millisecond, 80 * time.Millisecond
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			fresh(t)
			ctx := testkit.Ctx(t, within)
			p := testkit.StartProxy(t, srv.Addr)
			const name = "fixed-lease"
			a := k.new(lockkit.NewClient(t, patient(t, p)), name)
			b := k.new(lockkit.NewClient(t, direct(t)), name)
			p.SetLatency(latency)
			if err := a.LockWithLease(ctx, lease); err != nil {
				t.Fatal(err)
			}
			lost := a.Lost()
			if err := b.Lock(ctx); err != nil {
				t.Fatal(err)
			}
			if !testkit.Closed(lost) {
				t.Fatalf("another owner acquired the lock while the fixed-lease holder's Lost was still open")
			}
			lostWithin(t, lost, within, "fixed lease ran out")
		})
	}
}
