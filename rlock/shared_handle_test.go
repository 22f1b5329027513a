package rlock

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Goroutines sharing one handle exclude each other as they would with a
// sync.Mutex, waiting in the process: each Lock+Unlock is exactly two
// scripts, whoever waits.
func TestSharedMutexExcludesGoroutines(t *testing.T) {
	rdb := newRedis(t)
	c := newClient(t, rdb)
	ctx := ctxT(t)
	for kind, l := range map[string]any{
		"Mutex":       c.NewMutex("shared"),
		"FairMutex":   c.NewFairMutex("shared-fair"),
		"FencedMutex": c.NewFencedMutex("shared-fenced").Locker(),
		"RWMutex":     c.NewRWMutex("shared-rw").Locker(),
	} {
		const goroutines, rounds = 8, 20
		warm(ctx, t, l) // the scripts' first calls may load them
		before := evalCalls(t, rdb)
		var inside, overlaps atomic.Int32
		var wg sync.WaitGroup
		for range goroutines {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range rounds {
					if m, ok := l.(interface {
						Lock(context.Context) error
						Unlock(context.Context) error
					}); ok {
						if err := m.Lock(ctx); err != nil {
							t.Error(err)
							return
						}
						enterAndLeave(&inside, &overlaps)
						if err := m.Unlock(ctx); err != nil {
							t.Error(err)
							return
						}
						continue
					}
					sl := l.(sync.Locker)
					sl.Lock()
					enterAndLeave(&inside, &overlaps)
					sl.Unlock()
				}
			}()
		}
		wg.Wait()
		if n := overlaps.Load(); n != 0 {
			t.Errorf("%s: %d goroutines entered while another was inside", kind, n)
		}
		if kind == "Mutex" || kind == "FencedMutex" {
			// Two per pair; a goroutine that attempted while another held
			// the handle would add more. (Slack for a watchdog renewal.)
			if calls := evalCalls(t, rdb) - before; calls < 2*goroutines*rounds || calls > 2*goroutines*rounds+2 {
				t.Errorf("%s: %d scripts for %d Lock+Unlock pairs, want 2 each", kind, calls, goroutines*rounds)
			}
		}
	}
}

// warm locks and unlocks l once.
func warm(ctx context.Context, t *testing.T, l any) {
	t.Helper()
	if m, ok := l.(interface {
		Lock(context.Context) error
		Unlock(context.Context) error
	}); ok {
		if err := m.Lock(ctx); err != nil {
			t.Fatal(err)
		}
		if err := m.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
		return
	}
	sl := l.(sync.Locker)
	sl.Lock()
	defer sl.Unlock()
}

// enterAndLeave counts a goroutine into the critical section and out,
// counting an overlap if another was inside.
func enterAndLeave(inside, overlaps *atomic.Int32) {
	if inside.Add(1) != 1 {
		overlaps.Add(1)
	}
	time.Sleep(50 * time.Microsecond) // widen the window an overlap would need
	inside.Add(-1)
}

// While a goroutine holds a handle, another's TryLock with no wait fails at
// once without a command, a TryLock with a wait waits that long, and a
// Lock returns ctx.Err() when its ctx ends.
func TestSharedMutexWaitsHonourWaitAndContext(t *testing.T) {
	rdb := newRedis(t)
	c := newClient(t, rdb)
	ctx := ctxT(t)
	m := c.NewMutex("held")
	if err := m.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	before := evalCalls(t, rdb)
	if ok, err := m.TryLock(ctx, 0, 0); ok || err != nil {
		t.Errorf("TryLock(0) of a held handle = %v, %v; want false, nil", ok, err)
	}
	start := time.Now()
	if ok, err := m.TryLock(ctx, 100*time.Millisecond, 0); ok || err != nil {
		t.Errorf("TryLock(100ms) of a held handle = %v, %v; want false, nil", ok, err)
	}
	if d := time.Since(start); d < 100*time.Millisecond {
		t.Errorf("TryLock(100ms) returned after %v", d)
	}
	cctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- m.Lock(cctx) }()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("Lock with a cancelled ctx = %v, want context.Canceled", err)
	}
	if calls := evalCalls(t, rdb) - before; calls != 0 {
		t.Errorf("waits at the handle sent %d scripts, want 0", calls)
	}
	if err := m.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	if ok, err := m.TryLock(ctx, 0, 0); !ok || err != nil {
		t.Errorf("TryLock(0) after Unlock = %v, %v; want true", ok, err)
	}
}

// Reenter adds a hold, counted in the hash as Redisson counts it; each
// needs its Unlock; Reenter of a handle that holds nothing is ErrNotHeld.
func TestReenterCountsHoldsOnTheWire(t *testing.T) {
	rdb := newRedis(t)
	c := newClient(t, rdb)
	ctx := ctxT(t)
	m := c.NewMutex("re")
	if err := m.Reenter(ctx); !errors.Is(err, ErrNotHeld) {
		t.Errorf("Reenter of a free handle = %v, want ErrNotHeld", err)
	}
	if err := m.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	for want := 2; want <= 3; want++ {
		if err := m.Reenter(ctx); err != nil {
			t.Fatal(err)
		}
		if got := rdb.HGet(ctx, "re", m.Owner()).Val(); got != string(rune('0'+want)) {
			t.Errorf("hold count on the wire = %q, want %d", got, want)
		}
	}
	for left := 2; left >= 0; left-- {
		if err := m.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
		if n, _ := rdb.HGet(ctx, "re", m.Owner()).Int(); n != left {
			t.Errorf("hold count after an Unlock = %d, want %d", n, left)
		}
	}
	if err := m.Unlock(ctx); !errors.Is(err, ErrNotHeld) {
		t.Errorf("Unlock past the last hold = %v, want ErrNotHeld", err)
	}

	f := c.NewFencedMutex("re-fenced")
	token, err := f.Lock(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Reenter(ctx); err != nil {
		t.Fatal(err)
	}
	if now, _ := f.Token(ctx); now != token {
		t.Errorf("Reenter moved the token from %d to %d", token, now)
	}
}

// Readers sharing an RWMutex hold it together; a writer of the same handle
// waits for them, and RReenter reads beside the handle's own write lock.
func TestSharedRWMutexReadersShareWritersExclude(t *testing.T) {
	rdb := newRedis(t)
	c := newClient(t, rdb)
	ctx := ctxT(t)
	rw := c.NewRWMutex("rw-shared")
	if err := rw.RLock(ctx); err != nil {
		t.Fatal(err)
	}
	if ok, err := rw.TryRLock(ctx, 0, 0); !ok || err != nil {
		t.Fatalf("second reader of the handle = %v, %v; want true", ok, err)
	}
	if ok, err := rw.TryLock(ctx, 0, 0); ok || err != nil {
		t.Errorf("writer beside the handle's readers = %v, %v; want false", ok, err)
	}
	wrote := make(chan error, 1)
	go func() { wrote <- rw.Lock(ctx) }()
	for range 2 {
		if err := rw.RUnlock(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if err := <-wrote; err != nil {
		t.Fatal(err)
	}
	if err := rw.RReenter(ctx); err != nil {
		t.Fatalf("RReenter by the writer: %v", err)
	}
	if err := rw.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	if mode, _ := rw.Mode(ctx); mode != ModeRead {
		t.Errorf("mode after the writer's Unlock = %q, want read", mode)
	}
	if ok, err := rw.TryLock(ctx, 0, 0); ok || err != nil {
		t.Errorf("writer while the handle still reads = %v, %v; want false", ok, err)
	}
	if err := rw.RUnlock(ctx); err != nil {
		t.Fatal(err)
	}
	if ok, err := rw.TryLock(ctx, 0, 0); !ok || err != nil {
		t.Errorf("writer after the last RUnlock = %v, %v; want true", ok, err)
	}
}
