package relockotel

import (
	"context"
	"errors"
	"sync"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/relock-go/relock/rlock"
)

// ScopeName is the instrumentation scope of the Observer's meter and
// tracer: this module's path, as OpenTelemetry instrumentation libraries
// name theirs.
const ScopeName = "github.com/relock-go/relock/rlock/relockotel"

// The names of the Observer's spans.
const (
	SpanLock   = "relock.Lock"   // an acquisition: Lock, TryLock, ...
	SpanUnlock = "relock.Unlock" // a release
	SpanLost   = "relock.Lost"   // a hold that ended without Unlock
)

// The attributes of the Observer's metrics and spans.
const (
	AttrLockName      attribute.Key = "relock.lock.name"      // the lock's name: on spans; on metrics with WithLockNameAttribute
	AttrLockKind      attribute.Key = "relock.lock.kind"      // rlock.Kind: mutex, fenced, fair, read-write, fair-read-write
	AttrLockMode      attribute.Key = "relock.lock.mode"      // read or write, for read-write locks only
	AttrOutcome       attribute.Key = "relock.outcome"        // see the Outcome constants
	AttrOwner         attribute.Key = "relock.owner"          // the owner id: spans only
	AttrAttempts      attribute.Key = "relock.attempts"       // acquire scripts run: spans only
	AttrWakeups       attribute.Key = "relock.wakeups"        // releases that woke the acquisition: spans only
	AttrReentry       attribute.Key = "relock.reentry"        // the owner held the lock already: spans only
	AttrHoldCount     attribute.Key = "relock.hold.count"     // hold count after the acquisition or release: spans only
	AttrHoldDuration  attribute.Key = "relock.hold.duration"  // how long the hold lasted, in seconds: spans only
	AttrLeaseDuration attribute.Key = "relock.lease.duration" // the hold's lease, in seconds: spans only
	AttrWatchdog      attribute.Key = "relock.watchdog"       // the watchdog renews the hold: spans only
)

// The values of AttrOutcome.
const (
	OutcomeAcquired = "acquired" // an acquisition took the lock
	OutcomeTimeout  = "timeout"  // an acquisition's wait elapsed (or a TryLock's single attempt failed)
	OutcomeCanceled = "canceled" // an acquisition's ctx ended (canceled or past its deadline)
	OutcomeError    = "error"    // an acquisition or renewal failed otherwise (ErrClosed, a Redis error, ...)
	OutcomeReleased = "released" // a hold ended by its last Unlock
	OutcomeLost     = "lost"     // a hold ended without Unlock
	OutcomeRenewed  = "renewed"  // a watchdog renewal got its answer
)

// durationBuckets are the bucket boundaries, in seconds, of the duration
// histograms: from a round trip on a local network to a minute's wait.
var durationBuckets = []float64{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60}

// Observer turns the events of an rlock.Client into OpenTelemetry metrics
// and spans. Pass it to rlock.New with rlock.WithObserver; one Observer
// may serve several Clients. Its methods are safe for concurrent use.
//
// ObserveLock records synchronously, starts no goroutine and takes only
// short internal locks: as rlock requires, it never blocks the lock's path.
type Observer struct {
	tracer   trace.Tracer // nil without spans
	metrics  bool
	lockName bool
	attrs    []attribute.KeyValue // WithAttributes

	waitDuration    metric.Float64Histogram
	holdDuration    metric.Float64Histogram
	renewalDuration metric.Float64Histogram
	acquisitions    metric.Int64Counter
	handoffs        metric.Int64Counter
	wakeups         metric.Int64Counter
	lost            metric.Int64Counter
	renewals        metric.Int64Counter
	replaced        metric.Int64Counter
	holdsActive     metric.Int64UpDownCounter
	waitersActive   metric.Int64UpDownCounter

	// sets caches the measurement option of each attribute set: setKey →
	// metric.MeasurementOption.
	sets sync.Map

	// holds are the holds whose start was reported and whose end was not
	// yet: what relock.lock.holds.active counts, and the acquisition span
	// that a release or loss links to.
	holdsMu sync.Mutex
	holds   map[lockKey]*holdEntry
}

// lockKey identifies an owner's side of a lock, and so its hold: an owner
// id is unique to one handle, whose read and write sides share it.
type lockKey struct{ name, mode, owner string }

// holdEntry is a hold being counted.
type holdEntry struct {
	n    int               // starts reported minus ends reported; see holdStarted
	span trace.SpanContext // of the acquisition that started it
}

// setKey identifies a set of metric attributes.
type setKey struct {
	kind    rlock.Kind
	mode    string
	outcome string
	name    string // only with WithLockNameAttribute
}

// NewObserver returns an Observer that records rlock's events with the
// providers of the options, the global ones by default. It returns an
// error if an instrument cannot be created.
func NewObserver(opts ...Option) (*Observer, error) {
	cfg := config{metrics: true, spans: true}
	for _, opt := range opts {
		opt.apply(&cfg)
	}
	o := &Observer{
		metrics:  cfg.metrics,
		lockName: cfg.lockName,
		attrs:    append([]attribute.KeyValue(nil), cfg.attrs...),
		holds:    make(map[lockKey]*holdEntry),
	}
	if cfg.spans {
		tp := cfg.tp
		if tp == nil {
			tp = otel.GetTracerProvider()
		}
		o.tracer = tp.Tracer(ScopeName, trace.WithInstrumentationVersion(rlock.Version))
	}
	if cfg.metrics {
		mp := cfg.mp
		if mp == nil {
			mp = otel.GetMeterProvider()
		}
		if err := o.createInstruments(mp.Meter(ScopeName, metric.WithInstrumentationVersion(rlock.Version))); err != nil {
			return nil, err
		}
	}
	return o, nil
}

// createInstruments creates the Observer's instruments with m.
func (o *Observer) createInstruments(m metric.Meter) error {
	var errs []error
	histogram := func(name, desc string) metric.Float64Histogram {
		h, err := m.Float64Histogram(name, metric.WithUnit("s"), metric.WithDescription(desc), metric.WithExplicitBucketBoundaries(durationBuckets...))
		errs = append(errs, err)
		return h
	}
	counter := func(name, unit, desc string) metric.Int64Counter {
		c, err := m.Int64Counter(name, metric.WithUnit(unit), metric.WithDescription(desc))
		errs = append(errs, err)
		return c
	}
	upDown := func(name, unit, desc string) metric.Int64UpDownCounter {
		c, err := m.Int64UpDownCounter(name, metric.WithUnit(unit), metric.WithDescription(desc))
		errs = append(errs, err)
		return c
	}
	o.waitDuration = histogram("relock.lock.wait.duration", "How long acquisitions took, from the call to taking the lock or giving up.")
	o.holdDuration = histogram("relock.lock.hold.duration", "How long holds lasted, from the first acquisition to the last release or the loss.")
	o.renewalDuration = histogram("relock.lock.renewal.duration", "Round trips of the watchdog's renewals.")
	o.acquisitions = counter("relock.lock.acquisitions", "{acquisition}", "Acquisitions that ended, by outcome.")
	o.handoffs = counter("relock.lock.handoffs", "{acquisition}", "Acquisitions that took the lock after a release woke them.")
	o.wakeups = counter("relock.lock.wakeups", "{wakeup}", "Waiters woken by a release: a message, or a hand-off in the Client.")
	o.lost = counter("relock.lock.lost", "{hold}", "Holds that ended without Unlock: expired, or found gone.")
	o.renewals = counter("relock.lock.renewals", "{hold}", "Holds the watchdog renewed, or failed to renew, by outcome.")
	o.replaced = counter("relock.subscriptions.replaced", "{connection}", "Pub/sub connections that failed or fell silent and were replaced.")
	o.holdsActive = upDown("relock.lock.holds.active", "{hold}", "Locks held now.")
	o.waitersActive = upDown("relock.lock.waiters.active", "{waiter}", "Acquisitions waiting now for a busy lock.")
	return errors.Join(errs...)
}

// ObserveLock records e: it implements rlock.Observer.
func (o *Observer) ObserveLock(e rlock.Event) {
	switch e.Type {
	case rlock.EventWaitStarted:
		if o.metrics {
			o.waitersActive.Add(context.Background(), 1, o.measured(e, ""))
		}
	case rlock.EventWoken:
		if o.metrics {
			o.wakeups.Add(context.Background(), 1, o.measured(e, ""))
		}
	case rlock.EventAcquired, rlock.EventNotAcquired:
		o.acquisition(e)
	case rlock.EventReleased:
		o.released(e)
	case rlock.EventLost:
		o.lostHold(e)
	case rlock.EventRenewed, rlock.EventRenewalFailed:
		if o.metrics {
			outcome := OutcomeRenewed
			if e.Type == rlock.EventRenewalFailed {
				outcome = OutcomeError
			}
			set := o.measured(e, outcome)
			o.renewals.Add(context.Background(), int64(e.Count), set)
			o.renewalDuration.Record(context.Background(), e.Latency.Seconds(), set)
		}
	case rlock.EventSubscriptionReplaced:
		if o.metrics {
			o.replaced.Add(context.Background(), 1, o.measured(e, ""))
		}
	}
}

// acquisition records the end of an acquisition.
func (o *Observer) acquisition(e rlock.Event) {
	if !o.metrics && o.tracer == nil {
		return
	}
	acquired := e.Type == rlock.EventAcquired
	outcome := acquisitionOutcome(e)
	ctx := parentOf(e)
	var sc trace.SpanContext
	if o.tracer != nil {
		attrs := o.spanAttrs(e, 8)
		attrs = append(attrs,
			AttrOutcome.String(outcome),
			AttrAttempts.Int(e.Attempts),
			AttrWakeups.Int(e.Wakeups),
		)
		if acquired {
			attrs = append(attrs,
				AttrReentry.Bool(e.Reentry),
				AttrHoldCount.Int(e.Count),
				AttrLeaseDuration.Float64(e.Lease.Seconds()),
				AttrWatchdog.Bool(e.Watchdog),
			)
		}
		var span trace.Span
		ctx, span = o.tracer.Start(ctx, SpanLock,
			trace.WithTimestamp(e.Time.Add(-e.Wait)),
			trace.WithSpanKind(trace.SpanKindInternal),
			trace.WithAttributes(attrs...),
		)
		if e.Err != nil {
			span.SetStatus(codes.Error, e.Err.Error())
		}
		span.End(trace.WithTimestamp(e.Time))
		sc = span.SpanContext()
	}
	// A first acquisition starts a hold; a reentry (Count > 1) is part of
	// the hold it re-enters.
	started := acquired && e.Count == 1
	if started {
		o.holdStarted(keyOf(e), sc)
	}
	if !o.metrics {
		return
	}
	set := o.measured(e, outcome)
	o.waitDuration.Record(ctx, e.Wait.Seconds(), set)
	o.acquisitions.Add(ctx, 1, set)
	if acquired && e.Wakeups > 0 {
		o.handoffs.Add(ctx, 1, o.measured(e, ""))
	}
	if started {
		o.holdsActive.Add(ctx, 1, o.measured(e, ""))
	}
	if e.Waited {
		o.waitersActive.Add(ctx, -1, o.measured(e, ""))
	}
}

// released records an Unlock.
func (o *Observer) released(e rlock.Event) {
	if !o.metrics && o.tracer == nil {
		return
	}
	// A release that leaves holds (Count > 1) does not end the hold.
	var ended bool
	var acquiredBy trace.SpanContext
	if e.Count == 0 {
		ended, acquiredBy = o.holdEnded(keyOf(e))
	}
	ctx := parentOf(e)
	if o.tracer != nil {
		attrs := append(o.spanAttrs(e, 2), AttrHoldCount.Int(e.Count))
		if e.Count == 0 && e.Held > 0 {
			attrs = append(attrs, AttrHoldDuration.Float64(e.Held.Seconds()))
		}
		var span trace.Span
		ctx, span = o.holdSpan(ctx, SpanUnlock, e.Time.Add(-e.Latency), attrs, acquiredBy)
		span.End(trace.WithTimestamp(e.Time))
	}
	if o.metrics && ended {
		o.holdsActive.Add(ctx, -1, o.measured(e, ""))
		o.holdDuration.Record(ctx, e.Held.Seconds(), o.measured(e, OutcomeReleased))
	}
}

// lostHold records a hold that ended without Unlock.
func (o *Observer) lostHold(e rlock.Event) {
	if !o.metrics && o.tracer == nil {
		return
	}
	ended, acquiredBy := o.holdEnded(keyOf(e))
	ctx := context.Background()
	if o.tracer != nil {
		attrs := append(o.spanAttrs(e, 2), AttrHoldCount.Int(e.Count), AttrHoldDuration.Float64(e.Held.Seconds()))
		var span trace.Span
		ctx, span = o.holdSpan(ctx, SpanLost, e.Time, attrs, acquiredBy, trace.WithNewRoot())
		if e.Err != nil {
			span.SetStatus(codes.Error, e.Err.Error())
		} else {
			span.SetStatus(codes.Error, "lock lost")
		}
		span.End(trace.WithTimestamp(e.Time))
	}
	if !o.metrics {
		return
	}
	o.lost.Add(ctx, 1, o.measured(e, ""))
	if ended {
		o.holdsActive.Add(ctx, -1, o.measured(e, ""))
		o.holdDuration.Record(ctx, e.Held.Seconds(), o.measured(e, OutcomeLost))
	}
}

// holdSpan starts the span name about the end of a hold, at start, with
// attrs and the further options extra, linked to the span of the
// acquisition that took the hold when acquiredBy is valid.
func (o *Observer) holdSpan(ctx context.Context, name string, start time.Time, attrs []attribute.KeyValue, acquiredBy trace.SpanContext, extra ...trace.SpanStartOption) (context.Context, trace.Span) {
	opts := append([]trace.SpanStartOption{
		trace.WithTimestamp(start),
		trace.WithSpanKind(trace.SpanKindInternal),
		trace.WithAttributes(attrs...),
	}, extra...)
	if acquiredBy.IsValid() {
		opts = append(opts, trace.WithLinks(trace.Link{SpanContext: acquiredBy}))
	}
	return o.tracer.Start(ctx, name, opts...)
}

// holdStarted counts a hold that started, acquired by the span sc.
func (o *Observer) holdStarted(k lockKey, sc trace.SpanContext) {
	o.holdsMu.Lock()
	defer o.holdsMu.Unlock()
	h := o.holds[k]
	if h == nil {
		h = &holdEntry{}
		o.holds[k] = h
	}
	// n counts past 1 only when an owner's new hold is reported before the
	// loss of its previous one (the loss is reported after the hold ended,
	// and another goroutine sharing the handle may acquire meanwhile).
	h.n++
	h.span = sc
}

// holdEnded reports whether the end of a counted hold is new, and the
// span that acquired it. A second end of the same hold (a loss by expiry,
// then an Unlock that found the lock still there) or the end of a hold
// whose start was not reported (held before the Observer saw it) is not.
func (o *Observer) holdEnded(k lockKey) (bool, trace.SpanContext) {
	o.holdsMu.Lock()
	defer o.holdsMu.Unlock()
	h := o.holds[k]
	if h == nil {
		return false, trace.SpanContext{}
	}
	h.n--
	if h.n == 0 {
		delete(o.holds, k)
	}
	return true, h.span
}

// measured is the measurement option of e's metric attributes, with
// outcome unless empty.
func (o *Observer) measured(e rlock.Event, outcome string) metric.MeasurementOption {
	k := setKey{kind: e.Kind, mode: e.Mode, outcome: outcome}
	if o.lockName {
		k.name = e.Name
	}
	if opt, ok := o.sets.Load(k); ok {
		return opt.(metric.MeasurementOption)
	}
	attrs := make([]attribute.KeyValue, 0, 4+len(o.attrs))
	if k.kind != "" {
		attrs = append(attrs, AttrLockKind.String(string(k.kind)))
	}
	if k.mode != "" {
		attrs = append(attrs, AttrLockMode.String(k.mode))
	}
	if k.outcome != "" {
		attrs = append(attrs, AttrOutcome.String(k.outcome))
	}
	if k.name != "" {
		attrs = append(attrs, AttrLockName.String(k.name))
	}
	attrs = append(attrs, o.attrs...)
	opt, _ := o.sets.LoadOrStore(k, metric.WithAttributeSet(attribute.NewSet(attrs...)))
	return opt.(metric.MeasurementOption)
}

// spanAttrs are the attributes of a span of e's lock, with room for more.
func (o *Observer) spanAttrs(e rlock.Event, more int) []attribute.KeyValue {
	attrs := make([]attribute.KeyValue, 0, 4+len(o.attrs)+more)
	attrs = append(attrs, AttrLockName.String(e.Name), AttrLockKind.String(string(e.Kind)))
	if e.Mode != "" {
		attrs = append(attrs, AttrLockMode.String(e.Mode))
	}
	attrs = append(attrs, AttrOwner.String(e.Owner))
	return append(attrs, o.attrs...)
}

// keyOf is the key of e's owner and lock.
func keyOf(e rlock.Event) lockKey { return lockKey{name: e.Name, mode: e.Mode, owner: e.Owner} }

// parentOf is the context of the call e belongs to.
func parentOf(e rlock.Event) context.Context {
	if e.Context != nil {
		return e.Context
	}
	return context.Background()
}

// acquisitionOutcome is the outcome of the acquisition that e ends.
func acquisitionOutcome(e rlock.Event) string {
	switch {
	case e.Type == rlock.EventAcquired:
		return OutcomeAcquired
	case e.Err == nil:
		return OutcomeTimeout
	case errors.Is(e.Err, context.Canceled), errors.Is(e.Err, context.DeadlineExceeded):
		return OutcomeCanceled
	}
	return OutcomeError
}
