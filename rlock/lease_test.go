package rlock

import (
	"context"
	"errors"
	"testing"
	"time"
)

// Extend moves a fixed lease in Redis and in Lost's reckoning, later and
// sooner, and reports ErrNotHeld once the hold is gone.
func TestExtendFixedLease(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	c := newClient(t, rdb)
	m := c.NewMutex("x")
	if err := m.Extend(ctx, time.Second); !errors.Is(err, ErrNotHeld) {
		t.Fatalf("Extend before Lock = %v, want ErrNotHeld", err)
	}
	if err := m.LockWithLease(ctx, 300*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if err := m.Extend(ctx, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	if ttl := rdb.PTTL(ctx, "x").Val(); ttl < 9*time.Second {
		t.Fatalf("TTL after Extend(10s) = %v", ttl)
	}
	// Past the original lease, the lock is still held and not lost.
	time.Sleep(400 * time.Millisecond)
	if isClosed(m.Lost()) {
		t.Fatal("Lost closed at the end of the lease before Extend")
	}
	if n, err := m.HoldCount(ctx); n != 1 || err != nil {
		t.Fatalf("HoldCount = %d, %v", n, err)
	}
	// Sooner: the lease now ends in 200ms, and Lost says so.
	lost := m.Lost()
	if err := m.Extend(ctx, 200*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	select {
	case <-lost:
	case <-time.After(3 * time.Second):
		t.Fatal("Lost not closed after the shortened lease")
	}
	eventually(t, 3*time.Second, "the lock expired", func() bool { return rdb.Exists(ctx, "x").Val() == 0 })
	if err := m.Extend(ctx, time.Second); !errors.Is(err, ErrNotHeld) {
		t.Fatalf("Extend after expiry = %v, want ErrNotHeld", err)
	}
}

// Extend refuses holds the watchdog keeps and durations Redis cannot hold,
// and finds a force-unlocked hold gone.
func TestExtendRefusals(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	c := newClient(t, rdb)
	m := c.NewFairMutex("w")
	if err := m.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	if err := m.Extend(ctx, time.Second); err == nil || errors.Is(err, ErrNotHeld) {
		t.Fatalf("Extend of a watchdog hold = %v, want a refusal", err)
	}
	if err := m.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	f := c.NewFencedMutex("f")
	if _, err := f.LockWithLease(ctx, time.Minute); err != nil {
		t.Fatal(err)
	}
	if err := f.Extend(ctx, 500*time.Microsecond); !errors.Is(err, ErrInvalidDuration) {
		t.Fatalf("Extend(500µs) = %v, want ErrInvalidDuration", err)
	}
	if ok, err := c.NewMutex("f").ForceUnlock(ctx); !ok || err != nil {
		t.Fatalf("ForceUnlock = %v, %v", ok, err)
	}
	if err := f.Extend(ctx, time.Minute); !errors.Is(err, ErrNotHeld) {
		t.Fatalf("Extend of a force-unlocked hold = %v, want ErrNotHeld", err)
	}
	if !isClosed(f.Lost()) {
		t.Fatal("Lost not closed after Extend found the hold gone")
	}
}

// A hold's Context ends with the hold: ErrNotHeld after the last Unlock
// (not after an inner one), ErrLost when the lock is lost, and at once for
// an owner that holds nothing.
func TestHoldContext(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	c := newClient(t, rdb, WithWatchdogTimeout(300*time.Millisecond))
	m := c.NewMutex("ctx")
	if hctx, cancel := m.Context(ctx); context.Cause(hctx) != ErrNotHeld {
		t.Fatalf("Context of an unheld Mutex: cause %v, want ErrNotHeld", context.Cause(hctx))
	} else {
		cancel()
	}
	if err := m.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	if err := m.Reenter(ctx); err != nil {
		t.Fatal(err)
	}
	hctx, cancel := m.Context(ctx)
	defer cancel()
	if err := m.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	if hctx.Err() != nil {
		t.Fatal("Context ended at an inner Unlock")
	}
	if err := m.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	if context.Cause(hctx) != ErrNotHeld {
		t.Fatalf("cause after the last Unlock = %v, want ErrNotHeld", context.Cause(hctx))
	}

	if err := m.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	lctx, lcancel := m.Context(ctx)
	defer lcancel()
	if ok, err := c.NewMutex("ctx").ForceUnlock(ctx); !ok || err != nil {
		t.Fatalf("ForceUnlock = %v, %v", ok, err)
	}
	select {
	case <-lctx.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("Context not ended by the loss of the lock")
	}
	if context.Cause(lctx) != ErrLost {
		t.Fatalf("cause after the loss = %v, want ErrLost", context.Cause(lctx))
	}
}

// A MultiLock's Context ends when the set is released.
func TestMultiLockContext(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	c := newClient(t, rdb)
	l := NewMultiLock(c.NewMutex("m1"), c.NewMutex("m2"))
	if err := l.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	lctx, cancel := l.Context(ctx)
	defer cancel()
	if lctx.Err() != nil {
		t.Fatal("Context of a held set has ended")
	}
	if err := l.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	if context.Cause(lctx) != ErrNotHeld {
		t.Fatalf("cause after Unlock = %v, want ErrNotHeld", context.Cause(lctx))
	}
}

// Every duration below Redis's millisecond is refused alike, with
// ErrInvalidDuration, by options and calls.
func TestSubMillisecondDurationsRejected(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	for name, opt := range map[string]Option{
		"watchdog":     WithWatchdogTimeout(500 * time.Microsecond),
		"health check": WithHealthCheck(500 * time.Microsecond),
		"fair wait":    WithFairWaitTimeout(2 * time.Millisecond),
		"replica ack":  WithReplicaAck(1, 500*time.Microsecond),
		"unlock":       WithUnlockTimeout(0),
	} {
		if _, err := New(rdb, opt); !errors.Is(err, ErrInvalidDuration) {
			t.Errorf("New with %s = %v, want ErrInvalidDuration", name, err)
		}
	}
	c := newClient(t, rdb)
	m := c.NewMutex("d")
	if err := m.LockWithLease(ctx, 500*time.Microsecond); !errors.Is(err, ErrInvalidDuration) {
		t.Errorf("LockWithLease(500µs) = %v, want ErrInvalidDuration", err)
	}
	if _, err := m.TryLock(ctx, 0, 999*time.Microsecond); !errors.Is(err, ErrInvalidDuration) {
		t.Errorf("TryLock lease 999µs = %v, want ErrInvalidDuration", err)
	}
	if _, err := m.TryLock(ctx, -time.Second, 0); !errors.Is(err, ErrInvalidDuration) {
		t.Errorf("TryLock wait -1s = %v, want ErrInvalidDuration", err)
	}
	if _, err := c.NewFencedMutex("d").LockWithLease(ctx, -time.Second); !errors.Is(err, ErrInvalidDuration) {
		t.Errorf("FencedMutex.LockWithLease(-1s) = %v, want ErrInvalidDuration", err)
	}
	if n := rdb.Exists(ctx, "d").Val(); n != 0 {
		t.Fatal("a refused call took the lock")
	}
}

// A name that holds something other than a lock is reported with
// ErrWrongType, the Redis error still wrapped.
func TestWrongTypeName(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	if err := rdb.Set(ctx, "str", "v", 0).Err(); err != nil {
		t.Fatal(err)
	}
	c := newClient(t, rdb)
	_, err := c.NewMutex("str").TryLock(ctx, 0, 0)
	if !errors.Is(err, ErrWrongType) {
		t.Fatalf("TryLock on a string key = %v, want ErrWrongType", err)
	}
	var e *Error
	if !errors.As(err, &e) || e.Op != "try lock" || e.Name != "str" {
		t.Fatalf("error %#v does not name the operation and the lock", err)
	}
	if err := c.NewFairMutex("str").Lock(ctx); !errors.Is(err, ErrWrongType) {
		t.Fatalf("FairMutex.Lock on a string key = %v, want ErrWrongType", err)
	}
}

// The sync.Locker adapter panics with the operation's *Error.
func TestLockerPanicsWithError(t *testing.T) {
	rdb := newRedis(t)
	c := newClient(t, rdb)
	l := c.NewMutex("lk").Locker()
	defer func() {
		err, ok := recover().(error)
		if !ok || !errors.Is(err, ErrNotHeld) {
			t.Fatalf("Locker.Unlock of a lock not held panicked with %v, want an error wrapping ErrNotHeld", err)
		}
	}()
	l.Unlock()
}

// A waiter sleeps no longer than the TTL it saw, and waiters that saw the
// same TTL do not all wake at the same moment.
func TestWaitersSpreadTheirRetriesWithinTheTTL(t *testing.T) {
	o := &owner{c: &Client{opts: defaultOptions()}}
	const ttl = 30 * time.Second
	lo, hi := ttl, time.Duration(0)
	for range 1000 {
		d := o.sleepFor(ttl)
		if d > ttl || d < ttl*3/4 {
			t.Fatalf("sleepFor(%v) = %v, want within the last quarter of the TTL", ttl, d)
		}
		lo, hi = min(lo, d), max(hi, d)
	}
	if hi-lo < ttl/8 {
		t.Fatalf("1000 waiters' sleeps spread over %v only, want them spread over the last quarter of the TTL", hi-lo)
	}
}
