package rlock

import (
	"context"
	"errors"
	"testing"
	"time"
)

// A count that an earlier run left (a permit it never released) is reset
// by Delete, then TrySetPermits, where TrySetPermits alone keeps it.
func TestSemaphoreDeleteResetsACountLeftByARun(t *testing.T) {
	ctx := ctxT(t)
	c := newClient(t, newRedis(t))
	s := c.NewSemaphore("sem:rerun")
	if ok, err := s.TrySetPermits(ctx, 4); !ok || err != nil {
		t.Fatalf("TrySetPermits = %v, %v", ok, err)
	}
	if err := s.Acquire(ctx, 1); err != nil {
		t.Fatal(err)
	}
	rerun := c.NewSemaphore("sem:rerun")
	if ok, err := rerun.TrySetPermits(ctx, 4); ok || err != nil {
		t.Fatalf("TrySetPermits on the left count = %v, %v; want false", ok, err)
	}
	if ok, err := rerun.Delete(ctx); !ok || err != nil {
		t.Fatalf("Delete = %v, %v", ok, err)
	}
	if ok, err := rerun.Delete(ctx); ok || err != nil {
		t.Fatalf("Delete of no count = %v, %v; want false", ok, err)
	}
	if ok, err := rerun.TrySetPermits(ctx, 4); !ok || err != nil {
		t.Fatalf("TrySetPermits after Delete = %v, %v", ok, err)
	}
	if n, err := rerun.AvailablePermits(ctx); n != 4 || err != nil {
		t.Fatalf("AvailablePermits = %d, %v; want 4", n, err)
	}
}

// SetPermits gives a permit-expirable semaphore n permits in all, the
// leased ones included, and wakes a waiter by its message (the waiter's
// own bound, the earliest lease's end, is an hour away); Delete takes the
// count and the leases away.
func TestPermitSemaphoreSetPermitsAndDelete(t *testing.T) {
	ctx := ctxT(t)
	c := newClient(t, newRedis(t))
	s := c.NewPermitExpirableSemaphore("pes:set")
	if err := s.SetPermits(ctx, 2); err != nil {
		t.Fatal(err)
	}
	var held []*Permit
	for range 2 {
		p, err := s.Acquire(ctx, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, p)
	}
	wctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	got := make(chan *Permit, 1)
	go func() {
		p, _ := s.Acquire(wctx, time.Hour)
		got <- p
	}()
	eventually(t, 5*time.Second, "waiter asleep", func() bool { return hubOf(c).Stats().Sleeping == 1 })
	if err := s.SetPermits(ctx, 3); err != nil {
		t.Fatal(err)
	}
	if p := <-got; p == nil {
		t.Fatal("the waiter got no permit after SetPermits(3) with 2 leased")
	}
	if n, err := s.AvailablePermits(ctx); n != 0 || err != nil {
		t.Fatalf("AvailablePermits = %d, %v; want 0: 3 in all, 3 leased", n, err)
	}
	if err := s.SetPermits(ctx, 5); err != nil {
		t.Fatal(err)
	}
	if n, err := s.AvailablePermits(ctx); n != 2 || err != nil {
		t.Fatalf("AvailablePermits after SetPermits(5) = %d, %v; want 2", n, err)
	}
	if err := s.SetPermits(ctx, -1); !errors.Is(err, ErrInvalidCount) {
		t.Fatalf("SetPermits(-1): %v; want ErrInvalidCount", err)
	}
	if ok, err := s.Delete(ctx); !ok || err != nil {
		t.Fatalf("Delete = %v, %v", ok, err)
	}
	if err := s.ReleasePermit(ctx, held[0]); !errors.Is(err, ErrNotHeld) {
		t.Fatalf("ReleasePermit after Delete: %v; want ErrNotHeld", err)
	}
	select {
	case <-held[0].Lost():
	default:
		t.Fatal("the deleted permit's Lost is open")
	}
	if ok, err := s.Delete(ctx); ok || err != nil {
		t.Fatalf("Delete of nothing = %v, %v; want false", ok, err)
	}
}
