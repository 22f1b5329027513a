package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/relock-go/relock/test/redistest"
)

// quickConfig plays every scene in about seven seconds. Its lease leaves
// the watchdog a second of slack, for a machine that runs every module's
// tests beside it (a 600 ms lease was lost there: the fair scene's holder
// found its lock gone at Unlock).
func quickConfig() config {
	return config{
		Services:    []string{"orders", "billing", "shipping"},
		Increments:  2,
		Work:        20 * time.Millisecond,
		Lease:       1500 * time.Millisecond,
		LongHold:    3200 * time.Millisecond,
		TryWait:     100 * time.Millisecond,
		FencedLease: 200 * time.Millisecond,
	}
}

// embeddedRedis starts a miniredis as the demo does and returns its address.
func embeddedRedis(t *testing.T) string {
	t.Helper()
	m, err := startEmbeddedRedis()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	return m.Addr()
}

// newTestDemo returns a demo on a fresh miniredis, printing into out.
func newTestDemo(t *testing.T, out *bytes.Buffer) *demo {
	t.Helper()
	d, err := newDemo(t.Context(), out, embeddedRedis(t), quickConfig())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.close)
	return d
}

func TestRunPlaysEveryScene(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	var out bytes.Buffer
	start := time.Now()
	if err := run(ctx, &out, embeddedRedis(t), quickConfig()); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	t.Logf("ran in %v", time.Since(start))

	for _, want := range []string{
		"waits: inventory:sku-42 is held by",
		"is woken and acquires it",
		"HoldCount 2",
		"gives up: TryLock returned false",
		"lock never lost",
		"Lost() closed",
		"Unlock returns ErrNotHeld",
		"queues: 2nd in line",
		"fair lock, held by orders",
		"queue 1: billing, evicted if silent past",
		"2 subscriptions listen on its channels", // one per waiter
		"OK: grants in arrival order (FIFO): billing -> shipping",
		"writes price 12.50 with token",
		"stale write rejected by the store: token",
		`OK: the store holds "12.50 by orders"`,
		`OK: two readers hold catalog:price-list at once (mode "read")`,
		"is woken by the last reader's release and writes",
		"TryRLock returns false",
		"TryLock returns false, as sync.RWMutex would",
		// 3 services x 2, the reentrant one, the waiter during the
		// watchdog scene and the next holder after the fixed lease.
		"OK: counter = 9 = increments made",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}

// A run on a real redis-server leaves no key it made behind but the
// unlock latches, which expire on their own within a minute.
func TestRunCleansUpOnARealRedis(t *testing.T) {
	srv, err := redistest.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	rdb := srv.Client(t)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	var out bytes.Buffer
	if err := run(ctx, &out, srv.Addr, quickConfig()); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	keys, err := rdb.Keys(ctx, "*").Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range keys {
		ttl := rdb.PTTL(ctx, key).Val()
		if !strings.HasPrefix(key, "redisson_unlock_latch:") || ttl <= 0 || ttl > time.Minute {
			t.Errorf("the demo left %s (TTL %v)", key, ttl)
		}
	}
}

func TestCheckCounterFailsOnLostUpdate(t *testing.T) {
	var out bytes.Buffer
	d := newTestDemo(t, &out)
	d.increments.Store(3) // three increments claimed, none written

	if err := d.checkCounter(t.Context()); err == nil {
		t.Fatal("checkCounter: nil error, want one for a lost update")
	}
	if !strings.Contains(out.String(), "FAIL: counter = 0") {
		t.Errorf("output lacks the failure:\n%s", out.String())
	}
}

func TestCheckGrantOrderFailsOutOfOrder(t *testing.T) {
	var out bytes.Buffer
	d := newTestDemo(t, &out)

	if err := d.checkGrantOrder([]string{"billing", "shipping"}, []string{"shipping", "billing"}); err == nil {
		t.Fatal("checkGrantOrder: nil error, want one for grants out of arrival order")
	}
	if !strings.Contains(out.String(), "FAIL: grants shipping, billing, but arrivals billing, shipping") {
		t.Errorf("output lacks the failure:\n%s", out.String())
	}
}

func TestFencedStoreRejectsStaleToken(t *testing.T) {
	var db fencedStore
	if err := db.write(2, "new"); err != nil {
		t.Fatalf("write with token 2: %v", err)
	}
	if err := db.write(1, "stale"); err == nil {
		t.Fatal("write with token 1 after token 2: nil error, want a rejection")
	}
	if db.value != "new" {
		t.Errorf("value = %q, want %q", db.value, "new")
	}
}
