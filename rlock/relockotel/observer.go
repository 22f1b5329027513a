package relockotel

import (
	"context"
	"sync"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	semconv "go.opentelemetry.io/otel/semconv/v1.39.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/relock-go/relock/rlock"
)

// ScopeName is the instrumentation scope of the Observer's meter and
// tracer: this module's path, as OpenTelemetry instrumentation libraries
// name theirs.
const ScopeName = "github.com/relock-go/relock/rlock/relockotel"

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
	attrs    []attribute.KeyValue // db.system.name, WithServer's, WithAttributes

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
	terms           metric.Int64Counter // leader elections'
	proclamations   metric.Int64Counter
	leadersActive   metric.Int64UpDownCounter
	termDuration    metric.Float64Histogram

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
	errType string
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
		attrs:    append(append([]attribute.KeyValue{semconv.DBSystemNameRedis}, cfg.server...), cfg.attrs...),
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

// ObserveLock records e: it implements rlock.Observer.
func (o *Observer) ObserveLock(e rlock.Event) {
	if e.Kind.Counting() && (e.Type == rlock.EventAcquired || e.Type == rlock.EventNotAcquired || e.Type == rlock.EventReleased) {
		o.counted(e)
		return
	}
	switch e.Type {
	case rlock.EventWaitStarted:
		if o.metrics {
			o.waitersActive.Add(context.Background(), 1, o.measured(e, "", ""))
		}
	case rlock.EventWoken:
		if o.metrics {
			o.wakeups.Add(context.Background(), 1, o.measured(e, "", ""))
		}
	case rlock.EventAcquired, rlock.EventNotAcquired:
		o.acquisition(e)
	case rlock.EventReleased:
		o.released(e)
	case rlock.EventLost:
		o.lostHold(e)
	case rlock.EventRenewed, rlock.EventRenewalFailed:
		if o.metrics {
			set := o.measured(e, "", renewalErrorType(e))
			o.renewals.Add(context.Background(), int64(e.Count), set)
			o.renewalDuration.Record(context.Background(), e.Latency.Seconds(), set)
		}
	case rlock.EventSubscriptionReplaced:
		if o.metrics {
			o.replaced.Add(context.Background(), 1, o.measured(e, "", ""))
		}
	case rlock.EventElected, rlock.EventProclaimed, rlock.EventResigned, rlock.EventTermLost:
		o.election(e)
	}
}

// acquisition records the end of an acquisition.
func (o *Observer) acquisition(e rlock.Event) {
	if !o.metrics && o.tracer == nil {
		return
	}
	acquired := e.Type == rlock.EventAcquired
	errType := acquisitionErrorType(e)
	ctx := parentOf(e)
	var sc trace.SpanContext
	if o.tracer != nil {
		attrs := o.spanAttrs(e, 8)
		if errType != "" {
			attrs = append(attrs, semconv.ErrorTypeKey.String(errType))
		}
		attrs = append(attrs,
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
		ctx, sc = o.callSpan(ctx, SpanLock, e.Time.Add(-e.Wait), e, errType, attrs)
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
	set := o.measured(e, "", errType)
	o.waitDuration.Record(ctx, e.Wait.Seconds(), set)
	o.acquisitions.Add(ctx, 1, set)
	if acquired && e.Wakeups > 0 {
		o.handoffs.Add(ctx, 1, o.measured(e, "", ""))
	}
	if started {
		o.holdsActive.Add(ctx, 1, o.measured(e, "", ""))
	}
	if e.Waited {
		o.waitersActive.Add(ctx, -1, o.measured(e, "", ""))
	}
}

// released records an Unlock.
func (o *Observer) released(e rlock.Event) {
	if !o.metrics && o.tracer == nil {
		return
	}
	// A release that leaves acquisitions (Count > 1) does not end the hold.
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
		o.holdsActive.Add(ctx, -1, o.measured(e, "", ""))
		o.holdDuration.Record(ctx, e.Held.Seconds(), o.measured(e, OutcomeReleased, ""))
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
		attrs := append(o.spanAttrs(e, 3), AttrHoldCount.Int(e.Count), AttrHoldDuration.Float64(e.Held.Seconds()), semconv.ErrorTypeKey.String(ErrorLost))
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
	o.lost.Add(ctx, 1, o.measured(e, "", ""))
	if ended {
		o.holdsActive.Add(ctx, -1, o.measured(e, "", ""))
		o.holdDuration.Record(ctx, e.Held.Seconds(), o.measured(e, OutcomeLost, ""))
	}
}

// callSpan records the span name of the call e ends, from start, with
// attrs: its status is Error when the call failed (with e.Err's message)
// or its wait elapsed (errType set). It returns the span's context.
func (o *Observer) callSpan(ctx context.Context, name string, start time.Time, e rlock.Event, errType string, attrs []attribute.KeyValue) (context.Context, trace.SpanContext) {
	ctx, span := o.tracer.Start(ctx, name,
		trace.WithTimestamp(start),
		trace.WithSpanKind(trace.SpanKindInternal),
		trace.WithAttributes(attrs...),
	)
	switch {
	case e.Err != nil:
		span.SetStatus(codes.Error, e.Err.Error())
	case errType != "":
		span.SetStatus(codes.Error, "the wait elapsed")
	}
	span.End(trace.WithTimestamp(e.Time))
	return ctx, span.SpanContext()
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

// keyOf is the key of e's owner and lock.
func keyOf(e rlock.Event) lockKey { return lockKey{name: e.Name, mode: e.Mode, owner: e.Owner} }

// parentOf is the context of the call e belongs to.
func parentOf(e rlock.Event) context.Context {
	if e.Context != nil {
		return e.Context
	}
	return context.Background()
}
