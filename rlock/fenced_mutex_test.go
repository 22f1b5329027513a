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
	if tok, _ := a.Token(ctx); tok != 0 {
		t.Fatalf("Token before any acquisition = %d, want 0", tok)
	}
	t1, err := a.Lock(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Reenter(ctx); err != nil { // a re-entry keeps the token
		t.Fatal(err)
	}
	t2, _ := a.Token(ctx)
	if t2 != t1 {
		t.Fatalf("token %d after a re-entry, want %d", t2, t1)
	}
	if _, ok, _ := b.TryLock(ctx, 0, 0); ok {
		t.Fatal("another owner acquired a held fenced lock")
	}
	a.Unlock(ctx)
	a.Unlock(ctx)
	t3, ok, err := b.TryLock(ctx, time.Second, 0)
	if !ok || err != nil || t3 <= t2 {
		t.Fatalf("TryLock = %d, %v, %v; want a token above %d", t3, ok, err, t2)
	}
	if tok, _ := b.Token(ctx); tok != t3 {
		t.Fatalf("Token = %d, want the latest grant %d", tok, t3)
	}
	// Redisson layout: the counter at redisson_lock_token:{name}.
	if v, _ := rdb.Get(ctx, keys.Token("fenced")).Int64(); v != t3 {
		t.Fatalf("token counter = %d, want %d", v, t3)
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
	if ok, _ := m.IsHeld(ctx); !ok {
		t.Fatal("Locker.Lock did not take the lock")
	}
	l.Unlock()
	if ok, _ := m.IsLocked(ctx); ok {
		t.Fatal("Locker left the lock held")
	}
}
