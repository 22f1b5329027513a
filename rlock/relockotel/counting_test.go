package relockotel

import (
	"testing"
	"time"

	semconv "go.opentelemetry.io/otel/semconv/v1.39.0"

	"github.com/relock-go/relock/rlock"
	"github.com/relock-go/relock/test/testkit"
)

// A semaphore's acquisitions are recorded as a lock's (waits, hand-offs,
// waiters), with spans of their own carrying the permits; they and its
// releases start and end no hold.
func TestSemaphoreAcquisitionsAndReleases(t *testing.T) {
	h := newHarness(t, nil)
	ctx := testkit.Ctx(t, within)
	semKind := AttrLockKind.String(string(rlock.KindSemaphore))
	s := h.client.NewSemaphore("otel:sem")
	if _, err := s.TrySetPermits(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if err := s.Acquire(ctx, 1); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Acquire(ctx, 1) }()
	h.events.await(t, rlock.EventWaitStarted, nil)
	h.wantSum(t, "relock.lock.waiters.active", 1, semKind)
	if err := s.Release(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err := s.Release(ctx, 1); err != nil {
		t.Fatal(err)
	}
	h.wantSum(t, "relock.lock.acquisitions", 2, semKind, acquired)
	// The waiter's acquisition is a hand-off when a release message woke
	// it (it may have retried at once, the release coming before it
	// slept).
	woken := h.events.Matching(func(e rlock.Event) bool { return e.Type == rlock.EventAcquired && e.Wakeups > 0 })
	if n, _ := h.sum(t, "relock.lock.handoffs", semKind); n != int64(len(woken)) {
		t.Errorf("relock.lock.handoffs = %d, want %d", n, len(woken))
	}
	h.wantSum(t, "relock.lock.waiters.active", 0, semKind)
	if n, found := h.sum(t, "relock.lock.holds.active", semKind); n != 0 || found {
		t.Errorf("a semaphore counted %d holds", n)
	}
	if n := len(h.ended(SpanLock)) + len(h.ended(SpanUnlock)); n != 0 {
		t.Errorf("%d lock spans for a semaphore", n)
	}
	for _, name := range []string{SpanAcquire, SpanRelease} {
		spans := h.ended(name)
		if len(spans) != 2 {
			t.Fatalf("%d %s spans, want 2", len(spans), name)
		}
		for _, sp := range spans {
			if v, ok := attr(sp, AttrPermits); !ok || v.AsInt64() != 1 {
				t.Errorf("%s span has %s = %v, want 1", name, AttrPermits, v.Emit())
			}
			if _, ok := attr(sp, AttrOwner); ok {
				t.Errorf("%s span has an owner", name)
			}
		}
	}
}

// A latch's CountDown is a span with the count left, its Await an
// acquisition.
func TestLatchCountDownAndAwait(t *testing.T) {
	h := newHarness(t, nil)
	ctx := testkit.Ctx(t, within)
	l := h.client.NewCountDownLatch("otel:latch")
	if _, err := l.TrySetCount(ctx, 2); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := l.CountDown(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Await(ctx); err != nil {
		t.Fatal(err)
	}
	var left []int64
	for _, sp := range h.ended(SpanRelease) {
		v, _ := attr(sp, AttrLatchCount)
		left = append(left, v.AsInt64())
	}
	if len(left) != 2 || left[0] != 1 || left[1] != 0 {
		t.Errorf("%s counts %v, want [1 0]", SpanRelease, left)
	}
	h.wantSum(t, "relock.lock.acquisitions", 1, AttrLockKind.String(string(rlock.KindCountDownLatch)), acquired)
	if n := len(h.ended(SpanAcquire)); n != 1 {
		t.Errorf("%d %s spans, want 1", n, SpanAcquire)
	}
}

// A rate limiter's Allow is an acquisition, a refused one timing out, and
// its Release a span with the permits given back; none is a hold.
func TestRateLimiterAcquisitionsAndReleases(t *testing.T) {
	h := newHarness(t, nil)
	ctx := testkit.Ctx(t, within)
	rateKind := AttrLockKind.String(string(rlock.KindRateLimiter))
	l := h.client.NewRateLimiter("otel:rate")
	if err := l.SetRate(ctx, rlock.Rate{Limit: 2, Interval: time.Minute}); err != nil {
		t.Fatal(err)
	}
	if ok, err := l.AllowN(ctx, 2); !ok || err != nil {
		t.Fatalf("AllowN(2) = %v, %v", ok, err)
	}
	if ok, err := l.Allow(ctx); ok || err != nil {
		t.Fatalf("Allow over the limit = %v, %v", ok, err)
	}
	if err := l.Release(ctx, 2); err != nil {
		t.Fatal(err)
	}
	h.wantSum(t, "relock.lock.acquisitions", 1, rateKind, acquired)
	h.wantSum(t, "relock.lock.acquisitions", 1, rateKind, semconv.ErrorTypeKey.String(ErrorTimeout))
	if n, found := h.sum(t, "relock.lock.holds.active", rateKind); n != 0 || found {
		t.Errorf("a rate limiter counted %d holds", n)
	}
	if spans := h.ended(SpanAcquire); len(spans) != 2 {
		t.Fatalf("%d %s spans, want 2", len(spans), SpanAcquire)
	} else if v, ok := attr(spans[0], AttrPermits); !ok || v.AsInt64() != 2 {
		t.Errorf("the granted acquisition's %s = %v, want 2", AttrPermits, v.Emit())
	}
	if spans := h.ended(SpanRelease); len(spans) != 1 {
		t.Fatalf("%d %s spans, want 1", len(spans), SpanRelease)
	} else if v, ok := attr(spans[0], AttrPermits); !ok || v.AsInt64() != 2 {
		t.Errorf("the release's %s = %v, want 2", AttrPermits, v.Emit())
	}
}
