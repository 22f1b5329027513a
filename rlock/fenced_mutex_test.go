package rlock

import (
	"errors"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/relock-go/relock/internal/keys"
)

func TestFencedTokensGrowWithEveryFirstAcquisition(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	a, b := newClient(t, rdb).NewFencedMutex("fenced"), newClient(t, rdb).NewFencedMutex("fenced")
	if tok, err := a.Token(ctx); tok != 0 || err != nil {
		t.Fatalf("Token before any acquisition = %d, %v; want 0", tok, err)
	}
	t1, err := a.Lock(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Reenter(ctx); err != nil { // a re-entry keeps the token
		t.Fatal(err)
	}
	t2, err := a.Token(ctx)
	if t2 != t1 || err != nil {
		t.Fatalf("token %d, %v after a re-entry, want %d", t2, err, t1)
	}
	if _, ok, err := b.TryLock(ctx, 0, 0); ok || err != nil {
		t.Fatalf("another owner's TryLock of a held fenced lock = %v, %v; want false", ok, err)
	}
	for range 2 {
		if err := a.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
	}
	t3, ok, err := b.TryLock(ctx, time.Second, 0)
	if !ok || err != nil || t3 <= t2 {
		t.Fatalf("TryLock = %d, %v, %v; want a token above %d", t3, ok, err, t2)
	}
	if tok, err := b.Token(ctx); tok != t3 || err != nil {
		t.Fatalf("Token = %d, %v; want the latest grant %d", tok, err, t3)
	}
	// Redisson layout: the counter at redisson_lock_token:{name}.
	if v, err := rdb.Get(ctx, keys.Token("fenced")).Int64(); v != t3 || err != nil {
		t.Fatalf("token counter = %d, %v; want %d", v, err, t3)
	}
	if _, err := b.LockWithLease(ctx, 0); err == nil {
		t.Fatal("zero fixed lease accepted")
	}
}

func TestFencedTokensOrderCriticalSections(t *testing.T) {
	newRedis(t)
	ctx := ctxT(t)
	// Tokens seen inside the critical sections, in the order the sections
	// ran: they must grow, across Clients and goroutines.
	seen := make(chan int64, 200)
	var g errgroup.Group
	for range 2 {
		c := newClient(t, srv.Client(t))
		for range 4 {
			g.Go(func() error {
				m := c.NewFencedMutex("ordered")
				for range 20 {
					tok, err := m.Lock(ctx)
					if err != nil {
						return err
					}
					seen <- tok
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
	close(seen)
	var last int64
	for tok := range seen {
		if tok <= last {
			t.Fatalf("token %d granted after %d", tok, last)
		}
		last = tok
	}
	if last != 160 {
		t.Fatalf("last token %d, want 160 (one per acquisition)", last)
	}
}

func TestFencedLockErrors(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	empty := newClient(t, rdb).NewFencedMutex("")
	if _, err := empty.Lock(ctx); !errors.Is(err, ErrInvalidName) {
		t.Fatalf("Lock on an empty name = %v", err)
	}
	if _, err := empty.Token(ctx); !errors.Is(err, ErrInvalidName) {
		t.Fatalf("Token on an empty name = %v", err)
	}
	m := newClient(t, rdb).NewFencedMutex("f")
	if err := m.Unlock(ctx); !errors.Is(err, ErrNotHeld) {
		t.Fatalf("Unlock of an unheld fenced lock = %v", err)
	}
	l := m.Locker()
	l.Lock()
	if ok, err := m.IsHeld(ctx); !ok || err != nil {
		t.Fatalf("IsHeld after Locker.Lock = %v, %v; want true", ok, err)
	}
	l.Unlock()
	if ok, err := m.IsLocked(ctx); ok || err != nil {
		t.Fatalf("IsLocked after Locker.Unlock = %v, %v; want false", ok, err)
	}
}

// A failover can lose a release and leave the owner's field on the new
// master; the owner's next acquisition then finds its own field, as the
// retry of a lost reply would, and must still take a new token.
func TestFencedMutexTokenIsNewOverItsOwnLeftoverField(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	f := newClient(t, rdb).NewFencedMutex("fenced")
	t1, err := f.LockWithLease(ctx, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	if err := rdb.HSet(ctx, "fenced", f.Owner(), 1).Err(); err != nil { // the release lost
		t.Fatal(err)
	}
	t2, err := f.LockWithLease(ctx, time.Minute)
	if err != nil || t2 <= t1 {
		t.Fatalf("Lock over the owner's leftover field = %d, %v; want a token above %d", t2, err, t1)
	}
	if err := f.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	if n, err := rdb.Exists(ctx, "fenced").Result(); n != 0 || err != nil {
		t.Fatalf("the lock after the unlock: %d keys, %v; want it gone", n, err)
	}
}
