package relockotel

import (
	"context"
	"errors"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.39.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/relock-go/relock/rlock"
	"github.com/relock-go/relock/test/testkit"
)

func TestLockUnlock(t *testing.T) {
	h := newHarness(t, nil)
	ctx, parent := h.tp.Tracer("test").Start(testkit.Ctx(t, within), "parent")
	m := h.client.NewMutex("otel:plain")
	if err := m.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	h.wantSum(t, "relock.lock.holds.active", 1, mutexKind)
	if err := m.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	parent.End()

	h.wantSum(t, "relock.lock.acquisitions", 1, mutexKind, acquired)
	h.wantSum(t, "relock.lock.holds.active", 0, mutexKind)
	if n := h.count(t, "relock.lock.wait.duration", mutexKind, acquired); n != 1 {
		t.Errorf("relock.lock.wait.duration has %d acquired measurements, want 1", n)
	}
	if n := h.count(t, "relock.lock.hold.duration", mutexKind, AttrOutcome.String(OutcomeReleased)); n != 1 {
		t.Errorf("relock.lock.hold.duration has %d released measurements, want 1", n)
	}
	if _, found := h.sum(t, "relock.lock.handoffs"); found {
		t.Error("an uncontended lock counted a handoff")
	}
	// The lock's name is not on metrics by default.
	for name, m := range h.metrics(t) {
		if hasKey(m, AttrLockName) {
			t.Errorf("%s has the lock name", name)
		}
	}

	locks := h.ended(SpanLock)
	if len(locks) != 1 {
		t.Fatalf("%d %s spans, want 1", len(locks), SpanLock)
	}
	lock := locks[0]
	if lock.Parent().SpanID() != parent.SpanContext().SpanID() || lock.SpanContext().TraceID() != parent.SpanContext().TraceID() {
		t.Errorf("%s span's parent is %v, want the test's span %v", SpanLock, lock.Parent().SpanID(), parent.SpanContext().SpanID())
	}
	if lock.SpanKind() != trace.SpanKindInternal {
		t.Errorf("span kind %v, want internal", lock.SpanKind())
	}
	if lock.Status().Code != codes.Unset {
		t.Errorf("status %v, want unset", lock.Status())
	}
	if lock.InstrumentationScope().Name != ScopeName {
		t.Errorf("scope %q, want %q", lock.InstrumentationScope().Name, ScopeName)
	}
	if !lock.StartTime().Before(lock.EndTime()) || lock.StartTime().Before(parent.(interface{ StartTime() time.Time }).StartTime()) {
		t.Errorf("span from %v to %v, within the parent's from %v", lock.StartTime(), lock.EndTime(), parent.(interface{ StartTime() time.Time }).StartTime())
	}
	for key, want := range map[attribute.Key]attribute.Value{
		AttrLockName:            attribute.StringValue("otel:plain"),
		AttrLockKind:            attribute.StringValue("mutex"),
		AttrOwner:               attribute.StringValue(m.Owner()),
		semconv.DBSystemNameKey: attribute.StringValue("redis"),
		AttrAttempts:            attribute.IntValue(1),
		AttrWakeups:             attribute.IntValue(0),
		AttrReentry:             attribute.BoolValue(false),
		AttrHoldCount:           attribute.IntValue(1),
		AttrWatchdog:            attribute.BoolValue(true),
	} {
		if got, ok := attr(lock, key); !ok || got != want {
			t.Errorf("%s span's %s = %v, want %v", SpanLock, key, got.Emit(), want.Emit())
		}
	}
	if _, ok := attr(lock, AttrLockMode); ok {
		t.Errorf("a mutex's span has %s", AttrLockMode)
	}

	unlocks := h.ended(SpanUnlock)
	if len(unlocks) != 1 {
		t.Fatalf("%d %s spans, want 1", len(unlocks), SpanUnlock)
	}
	unlock := unlocks[0]
	if unlock.Parent().SpanID() != parent.SpanContext().SpanID() {
		t.Errorf("%s span's parent is not the test's span", SpanUnlock)
	}
	if links := unlock.Links(); len(links) != 1 || links[0].SpanContext.SpanID() != lock.SpanContext().SpanID() {
		t.Errorf("%s span's links are %v, want the %s span", SpanUnlock, links, SpanLock)
	}
	if got, ok := attr(unlock, AttrHoldCount); !ok || got.AsInt64() != 0 {
		t.Errorf("%s span's hold count is %v", SpanUnlock, got.Emit())
	}
	if got, ok := attr(unlock, AttrHoldDuration); !ok || got.AsFloat64() <= 0 {
		t.Errorf("%s span's hold duration is %v", SpanUnlock, got.Emit())
	}
}

func TestReentryCountsOneHold(t *testing.T) {
	h := newHarness(t, nil)
	ctx := testkit.Ctx(t, within)
	m := h.client.NewMutex("otel:reentrant")
	if err := m.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	if err := m.Reenter(ctx); err != nil {
		t.Fatal(err)
	}
	h.wantSum(t, "relock.lock.holds.active", 1, mutexKind)
	h.wantSum(t, "relock.lock.acquisitions", 2, mutexKind, acquired)
	if err := m.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	h.wantSum(t, "relock.lock.holds.active", 1, mutexKind)
	if err := m.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	h.wantSum(t, "relock.lock.holds.active", 0, mutexKind)
	if n := h.count(t, "relock.lock.hold.duration"); n != 1 {
		t.Errorf("relock.lock.hold.duration has %d measurements, want 1", n)
	}
	var reentries int
	for _, s := range h.ended(SpanLock) {
		if v, _ := attr(s, AttrReentry); v.AsBool() {
			reentries++
		}
	}
	if reentries != 1 {
		t.Errorf("%d reentrant %s spans, want 1", reentries, SpanLock)
	}
}

func TestContendedLockHandsOff(t *testing.T) {
	h := newHarness(t, nil)
	ctx := testkit.Ctx(t, within)
	first, second := h.client.NewMutex("otel:contended"), h.client.NewMutex("otel:contended")
	if err := first.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- second.Lock(ctx) }()
	h.events.await(t, rlock.EventWaitStarted, byOwner(second.Owner()))
	h.wantSum(t, "relock.lock.waiters.active", 1, mutexKind)
	// The waiter retries once as it starts listening, then sleeps until
	// woken: the release must come after that retry to wake it.
	h.cmds.await(t, second.Owner(), 2)
	if err := first.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}

	h.wantSum(t, "relock.lock.handoffs", 1, mutexKind)
	if n, _ := h.sum(t, "relock.lock.wakeups", mutexKind); n < 1 {
		t.Errorf("relock.lock.wakeups = %d, want at least 1", n)
	}
	h.wantSum(t, "relock.lock.waiters.active", 0, mutexKind)
	h.wantSum(t, "relock.lock.acquisitions", 2, mutexKind, acquired)
	h.wantSum(t, "relock.lock.holds.active", 1, mutexKind)
	var waited trace.SpanContext
	for _, s := range h.ended(SpanLock) {
		if v, _ := attr(s, AttrOwner); v.AsString() == second.Owner() {
			if w, _ := attr(s, AttrWakeups); w.AsInt64() < 1 {
				t.Errorf("the waiter's span has %s = %d", AttrWakeups, w.AsInt64())
			}
			waited = s.SpanContext()
		}
	}
	if !waited.IsValid() {
		t.Fatalf("no %s span of the waiter", SpanLock)
	}
	if err := second.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	h.wantSum(t, "relock.lock.holds.active", 0, mutexKind)
}

func TestTryLockTimesOut(t *testing.T) {
	h := newHarness(t, nil)
	ctx := testkit.Ctx(t, within)
	holder, other := h.client.NewMutex("otel:busy"), h.client.NewMutex("otel:busy")
	if err := holder.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = holder.Unlock(ctx) }()
	timeout := semconv.ErrorTypeKey.String(ErrorTimeout)

	// A single attempt, which never waits.
	if ok, err := other.TryLock(ctx, 0, 0); ok || err != nil {
		t.Fatalf("TryLock of a held lock: %v, %v", ok, err)
	}
	h.wantSum(t, "relock.lock.acquisitions", 1, mutexKind, timeout)
	if _, found := h.sum(t, "relock.lock.waiters.active"); found {
		t.Error("an acquisition that did not wait counted a waiter")
	}

	// A wait that elapses.
	called := time.Now()
	if ok, err := other.TryLock(ctx, 20*time.Millisecond, 0); ok || err != nil {
		t.Fatalf("TryLock of a held lock: %v, %v", ok, err)
	}
	h.wantSum(t, "relock.lock.acquisitions", 2, mutexKind, timeout)
	// (It may have given up while it subscribed, never waiting.)
	if n, _ := h.sum(t, "relock.lock.waiters.active"); n != 0 {
		t.Errorf("relock.lock.waiters.active = %d after the wait, want 0", n)
	}
	if n := h.count(t, "relock.lock.wait.duration", mutexKind, timeout); n != 2 {
		t.Errorf("relock.lock.wait.duration has %d timeout measurements, want 2", n)
	}
	for _, s := range h.ended(SpanLock) {
		if v, _ := attr(s, semconv.ErrorTypeKey); v.AsString() == ErrorTimeout && s.Status().Code != codes.Error {
			t.Errorf("a timeout's span has status %v, want error (it has error.type)", s.Status())
		}
	}
	// The one that waited ended no sooner than the wait after the call.
	// (It begins once the handle's slot is held, a moment after the call,
	// where the wait began: it may be that much shorter than the wait.)
	var last time.Time
	for _, s := range h.ended(SpanLock) {
		if s.EndTime().After(last) {
			last = s.EndTime()
		}
	}
	if d := last.Sub(called); d < 20*time.Millisecond {
		t.Errorf("the last %s span ended %v after the call, before the wait of 20ms was over", SpanLock, d)
	}
}

func TestCanceledWait(t *testing.T) {
	h := newHarness(t, nil)
	ctx := testkit.Ctx(t, within)
	holder, other := h.client.NewMutex("otel:canceled"), h.client.NewMutex("otel:canceled")
	if err := holder.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = holder.Unlock(ctx) }()
	waitCtx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- other.Lock(waitCtx) }()
	h.events.await(t, rlock.EventWaitStarted, byOwner(other.Owner()))
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Lock: %v, want context.Canceled", err)
	}
	h.wantSum(t, "relock.lock.acquisitions", 1, mutexKind, semconv.ErrorTypeKey.String(ErrorCanceled))
	h.wantSum(t, "relock.lock.waiters.active", 0, mutexKind)
	var found bool
	for _, s := range h.ended(SpanLock) {
		if v, _ := attr(s, semconv.ErrorTypeKey); v.AsString() == ErrorCanceled {
			found = true
			if s.Status().Code != codes.Error {
				t.Errorf("a canceled acquisition's span has status %v, want error", s.Status())
			}
		}
	}
	if !found {
		t.Errorf("no %s span of the canceled acquisition", SpanLock)
	}
}

func TestReadWriteModes(t *testing.T) {
	h := newHarness(t, nil)
	ctx := testkit.Ctx(t, within)
	rw := h.client.NewRWMutex("otel:rw")
	if err := rw.RLock(ctx); err != nil {
		t.Fatal(err)
	}
	if err := rw.RUnlock(ctx); err != nil {
		t.Fatal(err)
	}
	if err := rw.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	kind := AttrLockKind.String(string(rlock.KindRWMutex))
	h.wantSum(t, "relock.lock.acquisitions", 1, kind, AttrLockMode.String(rlock.ModeRead), acquired)
	h.wantSum(t, "relock.lock.acquisitions", 1, kind, AttrLockMode.String(rlock.ModeWrite), acquired)
	h.wantSum(t, "relock.lock.holds.active", 0, kind, AttrLockMode.String(rlock.ModeRead))
	h.wantSum(t, "relock.lock.holds.active", 1, kind, AttrLockMode.String(rlock.ModeWrite))
	if err := rw.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	h.wantSum(t, "relock.lock.holds.active", 0, kind)
	modes := map[string]int{}
	for _, s := range h.ended(SpanLock) {
		v, _ := attr(s, AttrLockMode)
		modes[v.AsString()]++
	}
	if modes[rlock.ModeRead] != 1 || modes[rlock.ModeWrite] != 1 {
		t.Errorf("%s spans by mode: %v", SpanLock, modes)
	}
}
