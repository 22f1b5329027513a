package relockotel

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/relock-go/relock/rlock"
)

// The names of the spans of leader elections.
const (
	SpanCampaign = "relock.Campaign" // a Campaign, from the call to the election
	SpanTerm     = "relock.Term"     // a term, from its election to its end
)

// AttrTermToken is a term's fencing token: election spans only.
const AttrTermToken attribute.Key = "relock.term.token"

// The values of AttrOutcome on relock.election.term.duration: how a term
// ended.
const (
	OutcomeResigned = "resigned" // by Resign
	OutcomeClosed   = "closed"   // its Client closed
	// A term lost otherwise (its lock lost) has OutcomeLost.
)

// election records the events of a leader election's terms.
func (o *Observer) election(e rlock.Event) {
	switch e.Type {
	case rlock.EventElected:
		ctx := parentOf(e)
		if o.tracer != nil {
			attrs := append(o.spanAttrs(e, 1), AttrTermToken.Int64(e.Token))
			ctx, _ = o.callSpan(ctx, SpanCampaign, e.Time.Add(-e.Wait), e, "", attrs)
		}
		if o.metrics {
			o.terms.Add(ctx, 1, o.measured(e, "", ""))
			o.leadersActive.Add(ctx, 1, o.measured(e, "", ""))
		}
	case rlock.EventProclaimed:
		if o.metrics {
			o.proclamations.Add(parentOf(e), 1, o.measured(e, "", ""))
		}
	case rlock.EventResigned, rlock.EventTermLost:
		outcome := termOutcome(e)
		if o.tracer != nil {
			attrs := append(o.spanAttrs(e, 2), AttrTermToken.Int64(e.Token), AttrOutcome.String(outcome))
			_, span := o.tracer.Start(context.Background(), SpanTerm,
				trace.WithTimestamp(e.Time.Add(-e.Held)),
				trace.WithSpanKind(trace.SpanKindInternal),
				trace.WithAttributes(attrs...),
				trace.WithNewRoot(),
			)
			if e.Type == rlock.EventTermLost {
				span.SetStatus(codes.Error, e.Err.Error())
			}
			span.End(trace.WithTimestamp(e.Time))
		}
		if o.metrics {
			ctx := context.Background()
			o.leadersActive.Add(ctx, -1, o.measured(e, "", ""))
			o.termDuration.Record(ctx, e.Held.Seconds(), o.measured(e, outcome, ""))
		}
	}
}

// termOutcome is how the term whose end e reports ended.
func termOutcome(e rlock.Event) string {
	switch {
	case e.Type == rlock.EventResigned:
		return OutcomeResigned
	case e.Err == rlock.ErrClosed:
		return OutcomeClosed
	}
	return OutcomeLost
}
