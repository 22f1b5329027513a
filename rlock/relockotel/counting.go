package relockotel

import (
	"go.opentelemetry.io/otel/attribute"
	semconv "go.opentelemetry.io/otel/semconv/v1.39.0"

	"github.com/relock-go/relock/rlock"
)

// The names of the spans of semaphores and count-down latches.
const (
	SpanAcquire = "relock.Acquire" // a semaphore's acquisition, a latch's Await
	SpanRelease = "relock.Release" // a semaphore's Release, a latch's CountDown
)

// The attributes of the spans of semaphores and count-down latches.
const (
	AttrPermits    attribute.Key = "relock.permits"     // permits a semaphore's call took or released: spans only
	AttrLatchCount attribute.Key = "relock.latch.count" // a latch's count after a CountDown: spans only
)

// counted records the end of a semaphore's acquisition or a latch's wait
// as a lock's acquisition is recorded (wait duration, acquisitions,
// hand-offs, waiters), and a Release or CountDown as a span; neither
// starts or ends a hold.
func (o *Observer) counted(e rlock.Event) {
	acquisition := e.Type != rlock.EventReleased
	var errType string
	if acquisition {
		errType = acquisitionErrorType(e)
	}
	ctx := parentOf(e)
	if o.tracer != nil {
		name, start, attrs := SpanRelease, e.Time.Add(-e.Latency), o.spanAttrs(e, 4)
		if acquisition {
			name, start = SpanAcquire, e.Time.Add(-e.Wait)
			attrs = append(attrs, AttrAttempts.Int(e.Attempts), AttrWakeups.Int(e.Wakeups))
			if errType != "" {
				attrs = append(attrs, semconv.ErrorTypeKey.String(errType))
			}
		}
		switch {
		case e.Kind == rlock.KindCountDownLatch && !acquisition:
			attrs = append(attrs, AttrLatchCount.Int(e.Count))
		case e.Kind != rlock.KindCountDownLatch && e.Type != rlock.EventNotAcquired:
			attrs = append(attrs, AttrPermits.Int(e.Count))
		}
		ctx, _ = o.callSpan(ctx, name, start, e, errType, attrs)
	}
	if !o.metrics || !acquisition {
		return
	}
	set := o.measured(e, "", errType)
	o.waitDuration.Record(ctx, e.Wait.Seconds(), set)
	o.acquisitions.Add(ctx, 1, set)
	if e.Type == rlock.EventAcquired && e.Wakeups > 0 {
		o.handoffs.Add(ctx, 1, o.measured(e, "", ""))
	}
	if e.Waited {
		o.waitersActive.Add(ctx, -1, o.measured(e, "", ""))
	}
}
