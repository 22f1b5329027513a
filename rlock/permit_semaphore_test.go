package rlock

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestPermitSemaphoreLeases(t *testing.T) {
	ctx := ctxT(t)
	c := newClient(t, newRedis(t))
	s := c.NewPermitExpirableSemaphore("pes:leases")
	if ok, err := s.TrySetPermits(ctx, 1); !ok || err != nil {
		t.Fatalf("TrySetPermits = %v, %v", ok, err)
	}
	p, err := s.TryAcquire(ctx, 0, 0)
	if p == nil || err != nil || len(p.ID) != 32 {
		t.Fatalf("TryAcquire = %v, %v", p, err)
	}
	if q, err := s.TryAcquire(ctx, 0, time.Second); q != nil || err != nil {
		t.Fatalf("second TryAcquire = %v, %v; want none", q, err)
	}
	if ok, err := s.UpdateLeaseTime(ctx, p.ID, time.Minute); !ok || err != nil {
		t.Fatalf("UpdateLeaseTime = %v, %v", ok, err)
	}
	if err := s.ReleasePermit(ctx, p); err != nil {
		t.Fatal(err)
	}
	if err := s.Release(ctx, p.ID); !errors.Is(err, ErrNotHeld) {
		t.Fatalf("second Release: %v; want ErrNotHeld", err)
	}
	if err := s.Release(ctx, "zz"); !errors.Is(err, ErrInvalidPermitID) || errors.Is(err, ErrNotHeld) {
		t.Fatalf("Release of a bad id: %v; want ErrInvalidPermitID, not ErrNotHeld", err)
	}
	if _, err := s.TryAcquire(ctx, 0, time.Microsecond); !errors.Is(err, ErrInvalidDuration) {
		t.Fatalf("sub-millisecond lease: %v", err)
	}
	select {
	case <-p.Lost():
		t.Fatal("a released permit is lost")
	default:
	}
}

// An expired permit comes back to a waiter, by Redisson's bound (the
// earliest expiry), and its holder learns it through Lost.
func TestPermitSemaphoreExpiry(t *testing.T) {
	ctx := ctxT(t)
	rdb := newRedis(t)
	a, b := newClient(t, rdb), newClient(t, rdb)
	s := a.NewPermitExpirableSemaphore("pes:expiry")
	if _, err := s.TrySetPermits(ctx, 1); err != nil {
		t.Fatal(err)
	}
	p, err := s.Acquire(ctx, 300*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	q, err := b.NewPermitExpirableSemaphore("pes:expiry").Acquire(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.Lost():
	case <-ctx.Done():
		t.Fatal("the expired permit's Lost was not closed")
	}
	if err := s.ReleasePermit(ctx, p); !errors.Is(err, ErrNotHeld) {
		t.Fatalf("release of the expired permit: %v", err)
	}
	if err := s.Release(ctx, q.ID); err != nil {
		t.Fatalf("release by id from another Client: %v", err)
	}
	if n, _ := s.AvailablePermits(ctx); n != 1 {
		t.Fatalf("%d available; want 1", n)
	}
}

// A release resent with the same request is applied once, and reported as
// a success both times.
func TestPermitSemaphoreResentRelease(t *testing.T) {
	ctx := ctxT(t)
	c := newClient(t, newRedis(t))
	s := c.NewPermitExpirableSemaphore("pes:resend")
	_ = s.AddPermits(ctx, 1)
	p, err := s.Acquire(ctx, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := parseID(p.ID)
	req, end := s.request()
	defer end()
	for range 2 {
		n, _, err := s.s.Release(ctx, c.rdb, [][]byte{raw}, c.publishCommand(), req, false)
		if n != 1 || err != nil {
			t.Fatalf("Release = %d, %v; want 1 both times", n, err)
		}
	}
	if n, _ := s.AvailablePermits(ctx); n != 1 {
		t.Fatalf("%d available; want 1", n)
	}
}

func TestCountDownLatch(t *testing.T) {
	ctx := ctxT(t)
	rdb := newRedis(t)
	a, b := newClient(t, rdb), newClient(t, rdb)
	l := a.NewCountDownLatch("latch:t")
	if ok, err := l.TrySetCount(ctx, 2); !ok || err != nil {
		t.Fatalf("TrySetCount = %v, %v", ok, err)
	}
	if ok, _ := l.TrySetCount(ctx, 5); ok {
		t.Fatal("TrySetCount over a count")
	}
	if _, err := l.TrySetCount(ctx, 0); !errors.Is(err, ErrInvalidCount) {
		t.Fatalf("TrySetCount(0): %v", err)
	}
	const waiters = 3
	done := make(chan error, waiters)
	for range waiters {
		go func() { done <- l.Await(ctx) }()
	}
	eventually(t, 5*time.Second, "waiters in line", func() bool { return lineLen(a, l.channel) == waiters })
	if ok, err := l.AwaitTimeout(ctx, 0); ok || err != nil {
		t.Fatalf("AwaitTimeout(0) = %v, %v", ok, err)
	}
	lb := b.NewCountDownLatch("latch:t")
	for i := range 2 {
		if err := lb.CountDown(ctx); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			if n, _ := lb.Count(ctx); n != 1 {
				t.Fatalf("count %d; want 1", n)
			}
		}
	}
	for range waiters {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	// A resent count-down is applied once.
	if ok, err := l.TrySetCount(ctx, 2); !ok || err != nil {
		t.Fatalf("TrySetCount = %v, %v; want it set", ok, err)
	}
	req, end := l.request()
	defer end()
	for range 2 {
		if n, err := l.l.CountDown(ctx, a.rdb, a.publishCommand(), req); n != 1 || err != nil {
			t.Fatalf("CountDown = %d, %v; want 1 both times", n, err)
		}
	}
	if ok, err := l.Delete(ctx); !ok || err != nil {
		t.Fatalf("Delete = %v, %v", ok, err)
	}
	wctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := l.Await(wctx); err != nil {
		t.Fatalf("Await after Delete: %v", err)
	}
}
