package rlock

import (
	"context"
	"errors"
	"testing"
	"time"
)

// A semaphore's count shows as KindCount to Inspect, which cannot tell it
// from a latch's, until a waiter listens on its channel; and as a
// semaphore to the handle's Inspect, with its waiters in Redis
// (subscribers) and in the Client's activity.
func TestInspectSemaphoreCountAndWaiter(t *testing.T) {
	ctx := ctxT(t)
	rdb := newRedis(t)
	c := newClient(t, rdb)
	const name = "inspect:sem"
	s := c.NewSemaphore(name)
	if _, err := s.TrySetPermits(ctx, 2); err != nil {
		t.Fatal(err)
	}
	info := mustInspect(t, c, name)
	if info.Kind != KindCount || info.Count != 2 || info.Held || len(info.Permits) != 0 || info.TTL >= 0 {
		t.Fatalf("Inspect = %+v; want KindCount, count 2, no expiry", info)
	}
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- s.Acquire(wctx, 3) }()
	eventually(t, 5*time.Second, "waiter asleep", func() bool { return hubOf(c).Stats().Sleeping == 1 })
	if info := mustInspect(t, c, name); info.Kind != KindSemaphore || info.Subscribers != 1 {
		t.Fatalf("Inspect with a waiter on the semaphore's channel = %+v; want KindSemaphore", info)
	}
	info, err := s.Inspect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.Kind != KindSemaphore || info.Count != 2 || info.Subscribers != 1 {
		t.Fatalf("Semaphore.Inspect = %+v; want a semaphore of 2 permits, 1 subscriber", info)
	}
	if w := info.Local.Waiters; len(w) != 1 || w[0].Kind != KindSemaphore || w[0].Permits != 3 || w[0].Name != name || w[0].Attempts < 1 {
		t.Fatalf("local waiters %+v; want one for 3 permits", w)
	}
	if a := c.Activity(); len(a.Waiters) != 1 || a.Waiters[0].Permits != 3 {
		t.Fatalf("Activity = %+v; want the waiter", a)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Acquire: %v", err)
	}
	if a := c.Activity(); len(a.Waiters) != 0 {
		t.Fatalf("Activity after the wait = %+v; want no waiter", a)
	}
}

// A latch's count, or a counter's, shows as KindCount to Inspect, and as
// KindCountDownLatch while a waiter awaits it: Redis shows the kind by the
// channel the waiter listens on.
func TestInspectTellsALatchByItsWaiter(t *testing.T) {
	ctx := ctxT(t)
	rdb := newRedis(t)
	c := newClient(t, rdb)
	const name = "inspect:latch"
	l := c.NewCountDownLatch(name)
	if _, err := l.TrySetCount(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if info := mustInspect(t, c, name); info.Kind != KindCount {
		t.Fatalf("Inspect of an idle latch = %+v; want KindCount", info)
	}
	done := make(chan error, 1)
	go func() { done <- l.Await(ctx) }()
	eventually(t, 5*time.Second, "waiter asleep", func() bool { return hubOf(c).Stats().Sleeping == 1 })
	if info := mustInspect(t, c, name); info.Kind != KindCountDownLatch || info.Count != 1 || info.Subscribers != 1 {
		t.Fatalf("Inspect with a waiter on the latch's channel = %+v; want KindCountDownLatch, count 1", info)
	}
	if err := l.CountDown(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("Await: %v", err)
	}
}

// A permit-expirable semaphore shows its leased permits, earliest expiry
// first, to Inspect without being told its kind.
func TestInspectPermitSemaphoreLeases(t *testing.T) {
	ctx := ctxT(t)
	c := newClient(t, newRedis(t))
	const name = "inspect:pes"
	s := c.NewPermitExpirableSemaphore(name)
	if _, err := s.TrySetPermits(ctx, 3); err != nil {
		t.Fatal(err)
	}
	long, err := s.Acquire(ctx, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	forever, err := s.Acquire(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	short, err := s.Acquire(ctx, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	for _, inspect := range []func(context.Context) (LockInfo, error){
		func(ctx context.Context) (LockInfo, error) { return c.Inspect(ctx, name) },
		s.Inspect,
	} {
		info, err := inspect(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if info.Kind != KindPermitSemaphore || info.Count != 0 || len(info.Permits) != 3 {
			t.Fatalf("Inspect = %+v; want 3 leased permits, none available", info)
		}
		p := info.Permits
		if p[0].ID != short.ID || !p[0].Expiry.Equal(short.Expiry().Truncate(time.Millisecond)) ||
			p[1].ID != long.ID || p[2].ID != forever.ID || !p[2].Expiry.IsZero() {
			t.Fatalf("permits %+v; want %s, %s, %s (never expires)", p, short.ID, long.ID, forever.ID)
		}
	}
}

// A latch is told apart from a semaphore by the caller; at zero its key is
// gone, and the latch's Inspect still reports its kind, count 0.
func TestInspectCountDownLatch(t *testing.T) {
	ctx := ctxT(t)
	c := newClient(t, newRedis(t))
	const name = "inspect:latch"
	l := c.NewCountDownLatch(name)
	if _, err := l.TrySetCount(ctx, 2); err != nil {
		t.Fatal(err)
	}
	if err := l.CountDown(ctx); err != nil {
		t.Fatal(err)
	}
	for _, k := range []Kind{KindCountDownLatch, KindSemaphore} {
		info, err := c.InspectKind(ctx, name, k)
		if err != nil || info.Kind != k || info.Count != 1 {
			t.Fatalf("InspectKind(%s) = %+v, %v; want count 1 of that kind", k, info, err)
		}
	}
	_ = l.CountDown(ctx)
	if info, err := l.Inspect(ctx); err != nil || info.Kind != KindCountDownLatch || info.Count != 0 {
		t.Fatalf("latch at zero: Inspect = %+v, %v", info, err)
	}
	if info := mustInspect(t, c, name); info.Kind != "" {
		t.Fatalf("Inspect of nothing = %+v; want no kind", info)
	}
}

// The caller's kind does not make a lock a semaphore, nor a word a count.
func TestInspectKindErrors(t *testing.T) {
	ctx := ctxT(t)
	rdb := newRedis(t)
	c := newClient(t, rdb)
	m := c.NewMutex("inspect:lock")
	if err := m.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.InspectKind(ctx, "inspect:lock", KindSemaphore); !errors.Is(err, ErrWrongType) {
		t.Errorf("a lock inspected as a semaphore: %v; want ErrWrongType", err)
	}
	if info, err := c.InspectKind(ctx, "inspect:lock", KindMutex); err != nil || info.Kind != KindMutex {
		t.Errorf("InspectKind(mutex) = %+v, %v", info, err)
	}
	rdb.Set(ctx, "inspect:word", "hello", 0)
	if _, err := c.Inspect(ctx, "inspect:word"); !errors.Is(err, ErrWrongType) {
		t.Errorf("a word: %v; want ErrWrongType", err)
	}
	for _, k := range []Kind{KindCount, "bogus"} {
		if _, err := c.InspectKind(ctx, "inspect:lock", k); !errors.Is(err, ErrInvalidKind) {
			t.Errorf("InspectKind(%q): %v; want ErrInvalidKind", k, err)
		}
	}
}
