package rlock

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"
)

// lineLen is how many acquisitions use channel's line in c now: the one
// attempting and those waiting behind it.
func lineLen(c *Client, channel string) int {
	countLinesOf.in(c).mu.Lock()
	defer countLinesOf.in(c).mu.Unlock()
	if l := countLinesOf.in(c).m[channel]; l != nil {
		return l.users
	}
	return 0
}

func TestSemaphoreCounts(t *testing.T) {
	ctx := ctxT(t)
	c := newClient(t, newRedis(t))
	s := c.NewSemaphore("sem:counts")
	if ok, err := s.TrySetPermits(ctx, 3); !ok || err != nil {
		t.Fatalf("TrySetPermits = %v, %v", ok, err)
	}
	if ok, err := s.TrySetPermits(ctx, 5); ok || err != nil {
		t.Fatalf("second TrySetPermits = %v, %v; want false", ok, err)
	}
	if ok, err := s.TryAcquire(ctx, 2, 0); !ok || err != nil {
		t.Fatalf("TryAcquire(2) = %v, %v", ok, err)
	}
	if ok, err := s.TryAcquire(ctx, 2, 0); ok || err != nil {
		t.Fatalf("TryAcquire(2) with 1 left = %v, %v; want false", ok, err)
	}
	if err := s.Release(ctx, 2); err != nil {
		t.Fatal(err)
	}
	if err := s.AddPermits(ctx, 2); err != nil {
		t.Fatal(err)
	}
	if n, err := s.AvailablePermits(ctx); n != 5 || err != nil {
		t.Fatalf("AvailablePermits = %d, %v; want 5", n, err)
	}
	if n, err := s.Drain(ctx); n != 5 || err != nil {
		t.Fatalf("Drain = %d, %v; want 5", n, err)
	}
	if n, err := s.AvailablePermits(ctx); n != 0 || err != nil {
		t.Fatalf("AvailablePermits after Drain = %d, %v; want 0", n, err)
	}
	for _, n := range []int{0, -1} {
		if _, err := s.TryAcquire(ctx, n, 0); !errors.Is(err, ErrInvalidCount) {
			t.Errorf("TryAcquire(%d): %v; want ErrInvalidCount", n, err)
		}
		if err := s.Release(ctx, n); !errors.Is(err, ErrInvalidCount) {
			t.Errorf("Release(%d): %v; want ErrInvalidCount", n, err)
		}
	}
	if _, err := c.NewSemaphore("").TryAcquire(ctx, 1, 0); !errors.Is(err, ErrInvalidName) {
		t.Errorf("empty name: %v", err)
	}
}

// A release wakes a waiter by its message: the waiter's own bound (the
// watchdog timeout, 30s) is far beyond the test's deadline.
func TestSemaphoreReleaseWakesWaiter(t *testing.T) {
	ctx := ctxT(t)
	rdb := newRedis(t)
	a, b := newClient(t, rdb), newClient(t, rdb)
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- a.NewSemaphore("sem:wake").Acquire(wctx, 2) }()
	eventually(t, 5*time.Second, "waiter subscribed", func() bool { return hubOf(a).Stats().Sleeping == 1 })
	if err := b.NewSemaphore("sem:wake").Release(ctx, 2); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("Acquire: %v", err)
	}
	if n, err := b.NewSemaphore("sem:wake").AvailablePermits(ctx); n != 0 || err != nil {
		t.Fatalf("AvailablePermits = %d, %v; want 0 left", n, err)
	}
}

// A waiter for many permits is not overtaken by a later waiter of the same
// Client for fewer.
func TestSemaphoreLargeWaiterFirst(t *testing.T) {
	ctx := ctxT(t)
	rdb := newRedis(t)
	c, other := newClient(t, rdb), newClient(t, rdb)
	s := c.NewSemaphore("sem:line")
	big, small := make(chan error, 1), make(chan error, 1)
	go func() { big <- s.Acquire(ctx, 3) }()
	eventually(t, 5*time.Second, "big waiter asleep", func() bool { return hubOf(c).Stats().Sleeping == 1 })
	go func() { small <- s.Acquire(ctx, 1) }()
	eventually(t, 5*time.Second, "small waiter in line", func() bool { return lineLen(c, s.channel) == 2 })
	rel := other.NewSemaphore("sem:line")
	if err := rel.Release(ctx, 1); err != nil {
		t.Fatal(err)
	}
	// The head is woken, retries, fails and sleeps again; the small
	// waiter, behind it in the line, never attempts: it could take the
	// released permit.
	waiting := func(permits int) (WaiterInfo, bool) {
		for _, w := range c.Activity().Waiters {
			if w.Name == "sem:line" && w.Permits == permits {
				return w, true
			}
		}
		return WaiterInfo{}, false
	}
	eventually(t, 5*time.Second, "head woken, retried and asleep again", func() bool {
		head, ok := waiting(3)
		return ok && head.Wakeups == 1 && hubOf(c).Stats().Sleeping == 1
	})
	if w, ok := waiting(1); !ok || w.Attempts != 0 {
		t.Fatalf("the small waiter (listed %v) made %d attempts while the big one waited ahead of it, want none", ok, w.Attempts)
	}
	if n, err := rel.AvailablePermits(ctx); n != 1 || err != nil {
		t.Fatalf("AvailablePermits = %d, %v; want the 1 released, untaken", n, err)
	}
	if err := rel.Release(ctx, 2); err != nil {
		t.Fatal(err)
	}
	if err := <-big; err != nil {
		t.Fatal(err)
	}
	if err := rel.Release(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if err := <-small; err != nil {
		t.Fatal(err)
	}
}

// A release resent with the same request is applied once.
func TestSemaphoreResentReleaseOnce(t *testing.T) {
	ctx := ctxT(t)
	c := newClient(t, newRedis(t))
	s := c.NewSemaphore("sem:resend")
	req, end := s.request()
	defer end()
	for range 2 {
		v, _, err := s.s.Release(ctx, c.rdb, 2, c.publishCommand(), req, false)
		if v != 2 || err != nil {
			t.Fatalf("Release = %d, %v; want 2 both times", v, err)
		}
	}
	if n, _ := s.AvailablePermits(ctx); n != 2 {
		t.Fatalf("%d available after a resent release of 2", n)
	}
}

// A cancelled wait returns ctx's error promptly and leaves nothing
// subscribed or in line.
func TestSemaphoreCancel(t *testing.T) {
	ctx := ctxT(t)
	c := newClient(t, newRedis(t))
	s := c.NewSemaphore("sem:cancel")
	wctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- s.Acquire(wctx, 1) }()
	eventually(t, 5*time.Second, "waiter asleep", func() bool { return hubOf(c).Stats().Sleeping == 1 })
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Acquire: %v; want context.Canceled", err)
	}
	eventually(t, 5*time.Second, "unsubscribed", func() bool { return hubOf(c).Stats().Channels == 0 })
	if n := lineLen(c, s.channel); n != 0 {
		t.Fatalf("%d left in line", n)
	}
	if ok, err := s.TryAcquire(ctx, 1, 20*time.Millisecond); ok || err != nil {
		t.Fatalf("TryAcquire with no permits = %v, %v", ok, err)
	}
}

// The semaphore runs on miniredis too.
func TestSemaphoreMiniredis(t *testing.T) {
	mr := miniredis.RunT(t)
	rdb := redis.NewClient(&redis.Options{Addr: mr.Addr()})
	t.Cleanup(func() { _ = rdb.Close() })
	ctx := ctxT(t)
	c := newClient(t, rdb)
	s := c.NewSemaphore("sem:mini")
	if ok, err := s.TrySetPermits(ctx, 1); !ok || err != nil {
		t.Fatalf("TrySetPermits = %v, %v", ok, err)
	}
	if err := s.Acquire(ctx, 1); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Acquire(ctx, 1) }()
	eventually(t, 5*time.Second, "waiter asleep", func() bool { return hubOf(c).Stats().Sleeping == 1 })
	if err := s.Release(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if v, _ := mr.Get("sem:mini"); v != "0" {
		t.Fatalf("count %q; want 0", v)
	}
}

// A semaphore's wait goes through the locks' wait loop: it reports the
// same events, with the permits as the acquisition's count, and a waiter
// queued behind another of its Client is listed while it waits in line.
func TestSemaphoreWaitReportsTheLoopsEvents(t *testing.T) {
	ctx := ctxT(t)
	rdb := newRedis(t)
	rec := newRecorder()
	c, other := newClient(t, rdb, WithObserver(rec)), newClient(t, rdb)
	s := c.NewSemaphore("sem:events")
	first, second := make(chan error, 1), make(chan error, 1)
	go func() { first <- s.Acquire(ctx, 2) }()
	started := rec.await(t, EventWaitStarted, nil)
	if started.Kind != KindSemaphore || started.Name != "sem:events" || started.Attempts != 1 || !started.Waited {
		t.Fatalf("wait started: %+v, want the semaphore's waiter after one attempt", started)
	}
	eventually(t, 5*time.Second, "the first waiter asleep", func() bool { return hubOf(c).Stats().Sleeping == 1 })
	go func() { second <- s.Acquire(ctx, 1) }()
	queued := rec.await(t, EventWaitStarted, func(e Event) bool { return e.Attempts == 0 })
	if ws := c.Activity().Waiters; len(ws) != 2 || queued.Kind != KindSemaphore {
		t.Fatalf("Activity().Waiters = %+v with the second queued (%+v), want both", ws, queued)
	}
	if err := other.NewSemaphore("sem:events").Release(ctx, 3); err != nil {
		t.Fatal(err)
	}
	for _, done := range []chan error{first, second} {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	acq := rec.await(t, EventAcquired, func(e Event) bool { return e.Count == 2 })
	if acq.Kind != KindSemaphore || acq.Attempts < 2 || acq.Wakeups < 1 || !acq.Waited || acq.Owner != "" {
		t.Errorf("acquisition after a wake-up: %+v, want 2 permits, attempts >= 2, wakeups >= 1", acq)
	}
	if woken := rec.of(EventWoken); len(woken) < acq.Wakeups {
		t.Errorf("%d woken events, the acquisition counted %d", len(woken), acq.Wakeups)
	}
	rec.await(t, EventAcquired, func(e Event) bool { return e.Count == 1 && e.Waited })
	if ws := c.Activity().Waiters; len(ws) != 0 {
		t.Errorf("Activity().Waiters after both = %+v, want none", ws)
	}
}
