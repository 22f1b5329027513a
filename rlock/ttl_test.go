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
	if info := mustInspect(t, c, "ttl"); info.TTL != NoExpiry {
		t.Errorf("Inspect's TTL of a lock without expiry = %v, want NoExpiry", info.TTL)
	}
}

// Observe on an Election that cannot be used closes its channel at once,
// before ctx ends, and Leader tells why.
func TestObserveUnusableTellsWhy(t *testing.T) {
	c := newClient(t, newRedis(t))
	ctx := ctxT(t)
	e := c.NewElection("")
	select {
	case _, open := <-e.Observe(ctx):
		if open {
			t.Fatal("Observe on an invalid name delivered a leader")
		}
	case <-ctx.Done():
		t.Fatal("Observe on an invalid name kept its channel open until ctx ended")
	}
	if _, err := e.Leader(ctx); !errors.Is(err, ErrInvalidName) {
		t.Errorf("Leader of an invalid name = %v, want ErrInvalidName", err)
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
