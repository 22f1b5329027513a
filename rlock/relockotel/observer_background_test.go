package relockotel

import (
	"errors"
	"fmt"
	"net"
	"os"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.39.0"

	"github.com/relock-go/relock/rlock"
	"github.com/relock-go/relock/test/testkit"
)

// A lease that runs out makes the hold lost, once: the Unlock that follows
// and still finds the lock in Redis (miniredis's TTLs stand still) does not
// end it again.
func TestLeaseExpiryIsLost(t *testing.T) {
	h := newHarness(t, nil)
	ctx := testkit.Ctx(t, within)
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
	ctx := testkit.Ctx(t, within)
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
