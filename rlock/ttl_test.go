package rlock

import (
	"errors"
	"testing"
	"time"
)

// TTL tells a free lock (ErrNotHeld) from one that never expires
// (NoExpiry) and from one held with a lease.
func TestTTLTellsNotHeldFromNoExpiry(t *testing.T) {
	rdb := newRedis(t)
	c := newClient(t, rdb)
	ctx := ctxT(t)
	m := c.NewMutex("ttl")
	if ttl, err := m.TTL(ctx); !errors.Is(err, ErrNotHeld) || ttl != 0 {
		t.Errorf("TTL of a free lock = %v, %v; want 0, ErrNotHeld", ttl, err)
	}
	if err := m.LockWithLease(ctx, time.Minute); err != nil {
		t.Fatal(err)
	}
	if ttl, err := m.TTL(ctx); err != nil || ttl <= 0 || ttl > time.Minute {
		t.Errorf("TTL of a held lock = %v, %v; want within its minute", ttl, err)
	}
	if err := rdb.Persist(ctx, "ttl").Err(); err != nil {
		t.Fatal(err)
	}
	if ttl, err := m.TTL(ctx); err != nil || ttl != NoExpiry {
		t.Errorf("TTL of a lock without expiry = %v, %v; want NoExpiry", ttl, err)
	}
}

// Watchdog timeouts too short to renew reliably are refused by New.
func TestShortWatchdogTimeoutRefused(t *testing.T) {
	rdb := newRedis(t)
	for _, d := range []time.Duration{time.Millisecond, 20 * time.Millisecond, 50 * time.Millisecond, MinWatchdogTimeout - time.Millisecond} {
		if _, err := New(rdb, WithWatchdogTimeout(d)); !errors.Is(err, ErrInvalidDuration) {
			t.Errorf("WithWatchdogTimeout(%v): New = %v, want ErrInvalidDuration", d, err)
		}
	}
	c, err := New(rdb, WithWatchdogTimeout(MinWatchdogTimeout))
	if err != nil {
		t.Fatalf("WithWatchdogTimeout(MinWatchdogTimeout): %v", err)
	}
	_ = c.Close()
}
