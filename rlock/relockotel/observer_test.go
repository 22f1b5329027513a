package relockotel

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"slices"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.39.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/rlock"
)

var (
	mutexKind = AttrLockKind.String(string(rlock.KindMutex))
	// acquired matches a success: no error.type (see hasAll).
	acquired = attribute.KeyValue{Key: semconv.ErrorTypeKey}
)

func TestLockUnlock(t *testing.T) {
	h := newHarness(t, nil)
	ctx, parent := h.tp.Tracer("test").Start(ctxT(t), "parent")
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
	ctx := ctxT(t)
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
	ctx := ctxT(t)
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
	ctx := ctxT(t)
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
	// The one that waited lasted the wait.
	var longest time.Duration
	for _, s := range h.ended(SpanLock) {
		longest = max(longest, s.EndTime().Sub(s.StartTime()))
	}
	if longest < 20*time.Millisecond {
		t.Errorf("the longest %s span lasted %v, less than the wait", SpanLock, longest)
	}
}

func TestCanceledWait(t *testing.T) {
	h := newHarness(t, nil)
	ctx := ctxT(t)
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

// A lease that runs out makes the hold lost, once: the Unlock that follows
// and still finds the lock in Redis (miniredis's TTLs stand still) does not
// end it again.
func TestLeaseExpiryIsLost(t *testing.T) {
	h := newHarness(t, nil)
	ctx := ctxT(t)
	m := h.client.NewMutex("otel:lease")
	if err := m.LockWithLease(ctx, 50*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	lostEvent := h.events.await(t, rlock.EventLost, nil)
	select {
	case <-m.Lost():
	default:
		t.Error("Lost is open after the loss was reported")
	}
	h.wantSum(t, "relock.lock.lost", 1, mutexKind)
	h.wantSum(t, "relock.lock.holds.active", 0, mutexKind)
	if n := h.count(t, "relock.lock.hold.duration", AttrOutcome.String(OutcomeLost)); n != 1 {
		t.Errorf("relock.lock.hold.duration has %d lost measurements, want 1", n)
	}

	losses := h.ended(SpanLost)
	if len(losses) != 1 {
		t.Fatalf("%d %s spans, want 1", len(losses), SpanLost)
	}
	lost := losses[0]
	if lost.Parent().IsValid() {
		t.Errorf("%s span has a parent", SpanLost)
	}
	if lost.Status().Code != codes.Error || lost.Status().Description != lostEvent.Err.Error() {
		t.Errorf("%s span's status is %v, want error %q", SpanLost, lost.Status(), lostEvent.Err)
	}
	locks := h.ended(SpanLock)
	if links := lost.Links(); len(locks) != 1 || len(links) != 1 || links[0].SpanContext.SpanID() != locks[0].SpanContext().SpanID() {
		t.Errorf("%s span's links are %v, want the %s span", SpanLost, lost.Links(), SpanLock)
	}
	if v, _ := attr(lost, AttrLeaseDuration); v.Type() != attribute.INVALID {
		t.Errorf("%s span has a lease", SpanLost)
	}
	if v, ok := attr(locks[0], AttrLeaseDuration); !ok || v.AsFloat64() != 0.05 {
		t.Errorf("%s span's lease is %v, want 0.05", SpanLock, v.Emit())
	}

	// The key is still in miniredis, but the hold is over: Unlock reports
	// ErrNotHeld, so the hold is recorded as lost and never as released.
	if err := m.Unlock(ctx); !errors.Is(err, rlock.ErrNotHeld) {
		t.Fatalf("Unlock after the loss = %v, want ErrNotHeld", err)
	}
	h.wantSum(t, "relock.lock.holds.active", 0, mutexKind)
	if n := h.count(t, "relock.lock.hold.duration"); n != 1 {
		t.Errorf("relock.lock.hold.duration has %d measurements, want 1", n)
	}
}

// A watchdog renewal that finds the lock gone (expired in Redis) makes the
// hold lost; the renewals before it are counted.
func TestRenewalFindsLockGone(t *testing.T) {
	h := newHarness(t, nil, rlock.WithWatchdogTimeout(300*time.Millisecond))
	ctx := ctxT(t)
	m := h.client.NewMutex("otel:watched")
	if err := m.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	h.events.await(t, rlock.EventRenewed, nil)
	if n, _ := h.sum(t, "relock.lock.renewals", acquired); n < 1 {
		t.Errorf("relock.lock.renewals = %d, want at least 1", n)
	}
	if n := h.count(t, "relock.lock.renewal.duration", acquired); n < 1 {
		t.Errorf("relock.lock.renewal.duration has %d measurements", n)
	}
	h.mr.FastForward(time.Second) // the lease ends in Redis
	e := h.events.await(t, rlock.EventLost, nil)
	if !errors.Is(e.Err, rlock.ErrLost) {
		t.Errorf("lost with %v", e.Err)
	}
	h.wantSum(t, "relock.lock.lost", 1, mutexKind)
	h.wantSum(t, "relock.lock.holds.active", 0, mutexKind)
}

func TestReadWriteModes(t *testing.T) {
	h := newHarness(t, nil)
	ctx := ctxT(t)
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

func TestOptions(t *testing.T) {
	t.Run("lock name and attributes", func(t *testing.T) {
		service := attribute.String("service.role", "billing")
		h := newHarness(t, []Option{WithLockNameAttribute(), WithAttributes(service)})
		ctx := ctxT(t)
		m := h.client.NewMutex("otel:named")
		if err := m.Lock(ctx); err != nil {
			t.Fatal(err)
		}
		if err := m.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
		h.wantSum(t, "relock.lock.acquisitions", 1, AttrLockName.String("otel:named"), service, acquired)
		h.wantSum(t, "relock.lock.holds.active", 0, AttrLockName.String("otel:named"), service)
		for _, s := range h.spans.Ended() {
			if v, ok := attr(s, service.Key); !ok || v != service.Value {
				t.Errorf("%s span lacks %s", s.Name(), service.Key)
			}
		}
	})
	t.Run("without spans", func(t *testing.T) {
		h := newHarness(t, []Option{WithoutSpans()})
		ctx := ctxT(t)
		m := h.client.NewMutex("otel:nospans")
		if err := m.Lock(ctx); err != nil {
			t.Fatal(err)
		}
		if err := m.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
		if n := len(h.spans.Ended()); n != 0 {
			t.Errorf("%d spans", n)
		}
		h.wantSum(t, "relock.lock.acquisitions", 1, acquired)
		h.wantSum(t, "relock.lock.holds.active", 0)
	})
	t.Run("without metrics", func(t *testing.T) {
		h := newHarness(t, []Option{WithoutMetrics()})
		ctx := ctxT(t)
		m := h.client.NewMutex("otel:nometrics")
		if err := m.Lock(ctx); err != nil {
			t.Fatal(err)
		}
		if err := m.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
		if ms := h.metrics(t); len(ms) != 0 {
			t.Errorf("%d metrics", len(ms))
		}
		if len(h.ended(SpanLock)) != 1 || len(h.ended(SpanUnlock)) != 1 {
			t.Errorf("spans: %d %s, %d %s", len(h.ended(SpanLock)), SpanLock, len(h.ended(SpanUnlock)), SpanUnlock)
		}
		// The hold is tracked for the link even without metrics.
		if links := h.ended(SpanUnlock)[0].Links(); len(links) != 1 {
			t.Errorf("%s span has %d links, want 1", SpanUnlock, len(links))
		}
	})
}

// Events that a test cannot easily provoke with a Client: renewal
// failures, replaced subscriptions, and a hold's events out of order.
func TestSyntheticEvents(t *testing.T) {
	h := newHarness(t, nil)
	now := time.Now()
	h.obs.ObserveLock(rlock.Event{Type: rlock.EventRenewalFailed, Time: now, Count: 3, Latency: time.Second, Err: &net.OpError{Op: "read", Err: os.ErrDeadlineExceeded}})
	h.obs.ObserveLock(rlock.Event{Type: rlock.EventSubscriptionReplaced, Time: now, Count: 7, Err: errors.New("silent")})
	ioTimeout := semconv.ErrorTypeKey.String(ErrorIOTimeout)
	h.wantSum(t, "relock.lock.renewals", 3, ioTimeout)
	if n := h.count(t, "relock.lock.renewal.duration", ioTimeout); n != 1 {
		t.Errorf("relock.lock.renewal.duration has %d error measurements, want 1", n)
	}
	h.wantSum(t, "relock.subscriptions.replaced", 1)
	if n := len(h.spans.Ended()); n != 0 {
		t.Errorf("background events made %d spans", n)
	}

	// An owner's new hold reported before the loss of its previous one:
	// neither is lost from the count.
	hold := rlock.Event{Time: now, Name: "otel:synthetic", Kind: rlock.KindMutex, Owner: "c:1"}
	event := func(typ rlock.EventType, count int) {
		e := hold
		e.Type, e.Count = typ, count
		if typ == rlock.EventLost {
			e.Err = fmt.Errorf("%w: synthetic", rlock.ErrLost)
		}
		h.obs.ObserveLock(e)
	}
	event(rlock.EventAcquired, 1)
	event(rlock.EventAcquired, 1)
	h.wantSum(t, "relock.lock.holds.active", 2, mutexKind)
	event(rlock.EventLost, 1)
	h.wantSum(t, "relock.lock.holds.active", 1, mutexKind)
	event(rlock.EventReleased, 0)
	h.wantSum(t, "relock.lock.holds.active", 0, mutexKind)
	// A release of a hold never reported acquired is not counted.
	event(rlock.EventReleased, 0)
	h.wantSum(t, "relock.lock.holds.active", 0, mutexKind)
	// A nil Context is the background.
	if n := len(h.ended(SpanUnlock)); n != 2 {
		t.Errorf("%d %s spans, want 2", n, SpanUnlock)
	}
}

// Failures are classified by error.type, a few fixed values.
func TestErrorType(t *testing.T) {
	for _, tc := range []struct {
		e    rlock.Event
		want string
	}{
		{rlock.Event{Type: rlock.EventAcquired}, ""},
		{rlock.Event{Type: rlock.EventNotAcquired}, ErrorTimeout},
		{rlock.Event{Type: rlock.EventNotAcquired, Err: fmt.Errorf("lock x: %w", context.Canceled)}, ErrorCanceled},
		{rlock.Event{Type: rlock.EventNotAcquired, Err: context.DeadlineExceeded}, ErrorDeadlineExceeded},
		{rlock.Event{Type: rlock.EventNotAcquired, Err: &rlock.Error{Op: "lock", Name: "x", Err: rlock.ErrClosed}}, ErrorClosed},
		{rlock.Event{Type: rlock.EventNotAcquired, Err: rlock.ErrWrongType}, ErrorWrongType},
		{rlock.Event{Type: rlock.EventNotAcquired, Err: rlock.ErrInvalidName}, ErrorInvalidArgument},
		{rlock.Event{Type: rlock.EventNotAcquired, Err: rlock.ErrNotReplicated}, ErrorNotReplicated},
		{rlock.Event{Type: rlock.EventNotAcquired, Err: fmt.Errorf("x: %w", replyError("READONLY You can't write against a read only replica."))}, ErrorRedis},
		{rlock.Event{Type: rlock.EventNotAcquired, Err: &net.OpError{Op: "read", Err: os.ErrDeadlineExceeded}}, ErrorIOTimeout},
		{rlock.Event{Type: rlock.EventNotAcquired, Err: errors.New("connection refused")}, ErrorOther},
	} {
		if got := acquisitionErrorType(tc.e); got != tc.want {
			t.Errorf("error.type of %v with %v = %q, want %q", tc.e.Type, tc.e.Err, got, tc.want)
		}
	}
}

// replyError is an error reply of a Redis server, as go-redis makes them.
type replyError string

func (e replyError) Error() string { return string(e) }

// RedisError marks a server's reply: it implements redis.Error.
func (replyError) RedisError() {}

// WithServer tells deployments apart: server.address and server.port on
// metrics and spans, beside db.system.name.
func TestWithServer(t *testing.T) {
	other := redis.NewClient(&redis.Options{Addr: "redis-eu.internal:6380"})
	t.Cleanup(func() { _ = other.Close() })
	h := newHarness(t, []Option{WithServer(other)})
	m := h.client.NewMutex("otel:server")
	if err := m.Lock(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	server := []attribute.KeyValue{semconv.DBSystemNameRedis, semconv.ServerAddress("redis-eu.internal"), semconv.ServerPort(6380)}
	h.wantSum(t, "relock.lock.acquisitions", 1, append(server, acquired)...)
	lock := h.ended(SpanLock)[0]
	for _, kv := range server {
		if got, ok := attr(lock, kv.Key); !ok || got != kv.Value {
			t.Errorf("%s span's %s = %v, want %v", SpanLock, kv.Key, got.Emit(), kv.Value.Emit())
		}
	}
	for _, tc := range []struct {
		rdb  redis.UniversalClient
		want []attribute.KeyValue
	}{
		{redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{"10.0.0.1:7000", "10.0.0.2:7000"}}), []attribute.KeyValue{semconv.ServerAddress("10.0.0.1"), semconv.ServerPort(7000)}},
		{redis.NewClient(&redis.Options{Network: "unix", Addr: "/run/redis.sock"}), []attribute.KeyValue{semconv.ServerAddress("/run/redis.sock")}},
		{redis.NewFailoverClient(&redis.FailoverOptions{MasterName: "main", SentinelAddrs: []string{"10.0.0.5:26379"}}), nil},
	} {
		got := serverAttrs(tc.rdb)
		_ = tc.rdb.Close()
		if !slices.Equal(got, tc.want) {
			t.Errorf("serverAttrs(%T) = %v, want %v", tc.rdb, got, tc.want)
		}
	}
}
