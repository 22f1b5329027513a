package rlock

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/relock-go/relock/test/eventlog"
)

// recorder is an Observer that keeps every event.
type recorder struct{ *eventlog.Log[Event] }

func newRecorder() *recorder { return &recorder{eventlog.New[Event]()} }

func (r *recorder) ObserveLock(e Event) { r.Add(e) }

// of returns the events of type t so far.
func (r *recorder) of(t EventType) []Event {
	return r.Matching(func(e Event) bool { return e.Type == t })
}

// await waits until an event of type typ for which ok holds (any, when ok
// is nil) has come, and returns it.
func (r *recorder) await(t *testing.T, typ EventType, ok func(Event) bool) Event {
	t.Helper()
	return r.Await(t, typ.String(), func(e Event) bool { return e.Type == typ && (ok == nil || ok(e)) })
}

func TestObserverSeesAcquireReentryAndRelease(t *testing.T) {
	rec := newRecorder()
	c := newClient(t, newRedis(t), WithObserver(rec))
	type key struct{}
	ctx := context.WithValue(ctxT(t), key{}, "caller")
	m := c.NewMutex("obs:plain")
	if err := m.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	if err := m.Reenter(ctx); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := m.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
	}
	acq := rec.of(EventAcquired)
	if len(acq) != 2 {
		t.Fatalf("%d acquired events, want 2", len(acq))
	}
	first, second := acq[0], acq[1]
	if first.Name != "obs:plain" || first.Kind != KindMutex || first.Owner != m.Owner() || first.Attempts != 1 ||
		first.Wakeups != 0 || first.Reentry || first.Count != 1 || !first.Watchdog || first.Lease != DefaultWatchdogTimeout {
		t.Errorf("first acquisition: %+v", first)
	}
	if first.Context == nil || first.Context.Value(key{}) != "caller" {
		t.Error("acquisition event does not carry the caller's ctx")
	}
	if !second.Reentry || second.Count != 2 {
		t.Errorf("reentry: %+v, want Reentry and Count 2", second)
	}
	rel := rec.of(EventReleased)
	if len(rel) != 2 || rel[0].Count != 1 || rel[1].Count != 0 || rel[1].Held <= 0 || rel[1].Context.Value(key{}) != "caller" {
		t.Fatalf("released events %+v, want counts 1 then 0 with the time held", rel)
	}
	if n := len(rec.of(EventWaitStarted)) + len(rec.of(EventLost)) + len(rec.of(EventNotAcquired)); n != 0 {
		t.Errorf("%d wait, lost or not-acquired events for an uncontended lock", n)
	}
}

func TestObserverFollowsAWaiterAndActivityListsIt(t *testing.T) {
	rdb := newRedis(t)
	rec := newRecorder()
	holder, waiting := newClient(t, rdb), newClient(t, rdb, WithObserver(rec))
	ctx := ctxT(t)
	h := holder.NewMutex("obs:contended")
	if err := h.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	w := waiting.NewMutex("obs:contended")
	done := make(chan error, 1)
	go func() { done <- w.Lock(ctx) }()
	started := rec.await(t, EventWaitStarted, nil)
	if started.Owner != w.Owner() || started.Attempts != 1 {
		t.Errorf("wait started: %+v, want the waiter after one attempt", started)
	}
	ws := waiting.Activity().Waiters
	if len(ws) != 1 || ws[0].Name != "obs:contended" || ws[0].Owner != w.Owner() || ws[0].Since.IsZero() || ws[0].Attempts < 1 {
		t.Fatalf("Activity().Waiters = %+v, want the one waiter", ws)
	}
	if hs := holder.Activity().Holds; len(hs) != 1 || hs[0].Owner != h.Owner() || hs[0].Count != 1 || !hs[0].Watchdog || !hs[0].LeaseEnd.After(hs[0].Since) {
		t.Fatalf("holder's Activity().Holds = %+v", hs)
	}
	// Asleep after its retry, so that only the release message wakes it.
	eventually(t, 5*time.Second, "the waiter asleep", func() bool { return hubOf(waiting).Stats().Sleeping == 1 })
	if err := h.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	acq := rec.await(t, EventAcquired, nil)
	if acq.Wakeups < 1 || acq.Attempts < 2 || acq.Wait <= 0 || !acq.Waited || !started.Waited {
		t.Errorf("acquisition after a wake-up: %+v, want wakeups >= 1, attempts >= 2", acq)
	}
	if len(rec.of(EventWoken)) != acq.Wakeups {
		t.Errorf("%d woken events, acquisition counted %d", len(rec.of(EventWoken)), acq.Wakeups)
	}
	a := waiting.Activity()
	if len(a.Waiters) != 0 || len(a.Holds) != 1 || a.Holds[0].Owner != w.Owner() {
		t.Errorf("after the hand-off, Activity = %+v, want one hold and no waiter", a)
	}
	mustUnlock(t, w)
}

func TestObserverSeesGivingUp(t *testing.T) {
	rdb := newRedis(t)
	rec := newRecorder()
	c := newClient(t, rdb, WithObserver(rec))
	ctx := ctxT(t)
	if err := newClient(t, rdb).NewMutex("obs:busy").Lock(ctx); err != nil {
		t.Fatal(err)
	}
	m := c.NewMutex("obs:busy")
	if ok, err := m.TryLock(ctx, 20*time.Millisecond, 0); ok || err != nil {
		t.Fatalf("TryLock = %v, %v, want a timeout", ok, err)
	}
	cctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- m.Lock(cctx) }()
	// The second wait: Lock's, after TryLock's.
	rec.await(t, EventWaitStarted, func(Event) bool { return len(rec.of(EventWaitStarted)) == 2 })
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Lock = %v, want context.Canceled", err)
	}
	na := rec.of(EventNotAcquired)
	if len(na) != 2 || na[0].Err != nil || na[0].Wait < 20*time.Millisecond || !na[0].Waited || !errors.Is(na[1].Err, context.Canceled) {
		t.Fatalf("not-acquired events %+v, want a timeout after the wait, then a cancellation", na)
	}
	if len(c.Activity().Waiters) != 0 {
		t.Error("a waiter that gave up is still listed")
	}
}

func TestObserverSeesRenewalsAndLoss(t *testing.T) {
	rdb := newRedis(t)
	rec := newRecorder()
	c := newClient(t, rdb, WithObserver(rec), WithWatchdogTimeout(300*time.Millisecond))
	ctx := ctxT(t)
	kept := c.NewMutex("obs:kept")
	if err := kept.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	renewed := rec.await(t, EventRenewed, nil)
	if renewed.Count != 1 || renewed.Latency <= 0 {
		t.Errorf("renewal: %+v, want one hold and its latency", renewed)
	}
	eventually(t, 5*time.Second, "LastRenewal set", func() bool {
		hs := c.Activity().Holds
		return len(hs) == 1 && !hs[0].LastRenewal.IsZero()
	})

	leased := c.NewMutex("obs:leased")
	if err := leased.LockWithLease(ctx, 50*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	<-leased.Lost()
	lost := rec.await(t, EventLost, nil)
	if lost.Name != "obs:leased" || !errors.Is(lost.Err, ErrLost) || !strings.Contains(lost.Err.Error(), "lease ran out") || lost.Held < 50*time.Millisecond-lossMargin(50*time.Millisecond) {
		t.Errorf("lost: %+v, want the leased lock lost by expiry", lost)
	}

	if _, err := kept.ForceUnlock(ctx); err != nil {
		t.Fatal(err)
	}
	<-kept.Lost()
	gone := rec.await(t, EventLost, func(e Event) bool { return e.Name == "obs:kept" })
	if !strings.Contains(gone.Err.Error(), "renewal found the lock gone") {
		t.Errorf("force-unlocked lock lost: %v, want found gone by a renewal", gone.Err)
	}
}

func TestObserverSeesReplacedSubscription(t *testing.T) {
	rdb := newRedis(t)
	rec := newRecorder()
	c := newClient(t, rdb, WithObserver(rec))
	ctx := ctxT(t)
	holder := newClient(t, rdb).NewMutex("obs:sub")
	if err := holder.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	w := c.NewMutex("obs:sub")
	go func() { done <- w.Lock(ctx) }()
	rec.await(t, EventWaitStarted, nil)
	if err := rdb.Do(ctx, "client", "kill", "type", "pubsub").Err(); err != nil {
		t.Fatal(err)
	}
	e := rec.await(t, EventSubscriptionReplaced, nil)
	if e.Count != 1 || e.Err == nil {
		t.Errorf("replaced: %+v, want one channel and why", e)
	}
	mustUnlock(t, holder)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	mustUnlock(t, w)
}

func TestLoggerWarnsOfLostLocksOnly(t *testing.T) {
	var buf bytes.Buffer
	var mu sync.Mutex
	logged := make(chan struct{}, 1)
	l := slog.New(slog.NewTextHandler(writerFunc(func(p []byte) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		select {
		case logged <- struct{}{}:
		default:
		}
		return buf.Write(p)
	}), &slog.HandlerOptions{Level: slog.LevelInfo}))
	c := newClient(t, newRedis(t), WithLogger(l))
	ctx := ctxT(t)
	m := c.NewMutex("log:quiet")
	if err := m.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	mustUnlock(t, m)
	leased := c.NewMutex("log:lost")
	if err := leased.LockWithLease(ctx, 20*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	<-leased.Lost()
	<-logged
	mu.Lock()
	out := buf.String()
	mu.Unlock()
	if !strings.Contains(out, "level=WARN") || !strings.Contains(out, "relock: lock lost") || !strings.Contains(out, "lock=log:lost") {
		t.Errorf("log = %q, want a warning for log:lost", out)
	}
	if strings.Contains(out, "log:quiet") {
		t.Errorf("log = %q: an uneventful lock logged at Info", out)
	}
}

// writerFunc is a function as an io.Writer.
type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

func TestObserverOptionsRejectNil(t *testing.T) {
	for _, opt := range []Option{WithObserver(nil), WithLogger(nil)} {
		if _, err := New(newRedis(t), opt); err == nil {
			t.Error("New accepted a nil observer or logger")
		}
	}
}
