package scripts

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/test/testkit"
)

// Set gives a permit-expirable semaphore n permits in all, the leased ones
// included, as Redisson's setPermits: a missing count is set to n; a
// count moves by n less the permits there are, and n is announced; a
// semaphore with n permits already is left alone, and nothing announced.
func TestPermitSemaphoreSetCountsTheLeasedPermits(t *testing.T) {
	mr, rdb := testkit.Miniredis(t)
	ctx := context.Background()
	p := NewPermitSemaphore("pes")
	sub := rdb.Subscribe(ctx, p.Channel())
	t.Cleanup(func() { _ = sub.Close() })
	if _, err := sub.Receive(ctx); err != nil {
		t.Fatal(err)
	}
	heard := func(want string) {
		t.Helper()
		m, err := sub.ReceiveTimeout(ctx, time.Second)
		if msg, ok := m.(*redis.Message); err != nil || !ok || msg.Payload != want {
			t.Fatalf("announcement %v, %v; want %q", m, err, want)
		}
	}
	count := func(want string) {
		t.Helper()
		if v, _ := mr.Get("pes"); v != want {
			t.Fatalf("count %q, want %q", v, want)
		}
	}

	if changed, err := p.Set(ctx, rdb, 3, Publish); !changed || err != nil {
		t.Fatalf("Set(3) of a missing count = %v, %v", changed, err)
	}
	count("3")
	heard("3")
	ids := [][]byte{[]byte("0123456789abcdef"), []byte("fedcba9876543210")}
	if ok, _, err := p.Acquire(ctx, rdb, ids, time.Now().Add(time.Hour), false, Publish); !ok || err != nil {
		t.Fatalf("Acquire of 2 = %v, %v", ok, err)
	}
	count("1")
	if changed, err := p.Set(ctx, rdb, 5, Publish); !changed || err != nil {
		t.Fatalf("Set(5) with 2 leased = %v, %v", changed, err)
	}
	count("3")
	heard("5")
	if changed, err := p.Set(ctx, rdb, 5, Publish); changed || err != nil {
		t.Fatalf("Set(5) of 5 permits = %v, %v; want nothing changed", changed, err)
	}
	if changed, err := p.Set(ctx, rdb, 1, Publish); !changed || err != nil {
		t.Fatalf("Set(1) with 2 leased = %v, %v", changed, err)
	}
	count("-1")
	heard("1")
	if m, err := sub.ReceiveTimeout(ctx, 50*time.Millisecond); err == nil {
		t.Fatalf("an announcement more: %v", m)
	}

	if ok, err := p.Delete(ctx, rdb); !ok || err != nil {
		t.Fatalf("Delete = %v, %v", ok, err)
	}
	if mr.Exists("pes") || mr.Exists(p.Leases()) {
		t.Fatal("Delete left the count or the leases")
	}
	if ok, err := p.Delete(ctx, rdb); ok || err != nil {
		t.Fatalf("Delete of nothing = %v, %v", ok, err)
	}
}

// A semaphore's Delete deletes its count, and reports whether there was
// one.
func TestSemaphoreDelete(t *testing.T) {
	mr, rdb := testkit.Miniredis(t)
	ctx := context.Background()
	s := NewSemaphore("s")
	if ok, err := s.TrySet(ctx, rdb, 2, Publish); !ok || err != nil {
		t.Fatalf("TrySet = %v, %v", ok, err)
	}
	if ok, err := s.Delete(ctx, rdb); !ok || err != nil || mr.Exists("s") {
		t.Fatalf("Delete = %v, %v; exists %v", ok, err, mr.Exists("s"))
	}
	if ok, err := s.Delete(ctx, rdb); ok || err != nil {
		t.Fatalf("Delete of nothing = %v, %v", ok, err)
	}
	if ok, err := s.TrySet(ctx, rdb, 4, Publish); !ok || err != nil {
		t.Fatalf("TrySet after Delete = %v, %v", ok, err)
	}
}
