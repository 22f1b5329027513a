package chaos

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/relock-go/relock/rlock"
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

func TestHolderCutOffFromRedisIsToldByLeaseEnd(t *testing.T) {
	const lease = 600 * time.Millisecond
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			fresh(t)
			ctx := ctxT(t)
			p := startProxy(t)
			const name = "cut-off"
			a := k.new(newClient(t, proxied(t, p, 0), rlock.WithWatchdogTimeout(lease)), name)
			b := k.new(newClient(t, direct(t), rlock.WithWatchdogTimeout(lease)), name)
			if err := a.Lock(ctx); err != nil {
				t.Fatal(err)
			}
			lost := a.Lost()
			// Renewals keep the lock past its first lease.
			time.Sleep(2 * lease)
			if closed(lost) {
				t.Fatal("Lost fired while Redis was reachable and the watchdog renewing")
			}

			p.BlackHole(true)
			cut := time.Now()
			bDone := acquireAsync(ctx, b)
			lostWithin(t, lost, lease+timerSlack, "holder cut off from Redis")
			lostAt := time.Since(cut)
			// The last renewal that can have reached Redis was sent at most
			// a renewal period (lease/3) before the cut.
			if lostAt < lease/3 {
				t.Fatalf("Lost fired %v after the cut: before the lease granted by the last renewal could end", lostAt)
			}
			select {
			case err := <-bDone:
				t.Fatalf("another owner acquired (err %v) before the cut-off holder's Lost fired", err)
			default:
			}
			select {
			case err := <-bDone:
				if err != nil {
					t.Fatalf("other owner's Lock: %v", err)
				}
			case <-time.After(lease + handoffBound):
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
		})
	}
}

func TestFixedLeaseLostBeforeAnotherOwnerAcquires(t *testing.T) {
	// A slow link to Redis: the lease starts when Redis runs the acquire,
	// and the holder learns of it one latency later. Lost must still fire
	// no later than Redis expires the lock.
	const lease, latency = 400 * time.Millisecond, 80 * time.Millisecond
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			fresh(t)
			ctx := ctxT(t)
			p := startProxy(t)
			const name = "fixed-lease"
			a := k.new(newClient(t, patient(t, p)), name)
			b := k.new(newClient(t, direct(t)), name)
			p.SetLatency(latency)
			if err := a.LockWithLease(ctx, lease); err != nil {
				t.Fatal(err)
			}
			lost := a.Lost()
			if err := b.Lock(ctx); err != nil {
				t.Fatal(err)
			}
			if !closed(lost) {
				t.Fatalf("another owner acquired the lock while the fixed-lease holder's Lost was still open")
			}
			lostWithin(t, lost, within, "fixed lease ran out")
		})
	}
}
