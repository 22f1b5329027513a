package relockotel

import (
	"errors"

	"go.opentelemetry.io/otel/metric"
)

// durationBuckets are the bucket boundaries, in seconds, of the duration
// histograms: from a round trip on a local network to a minute's wait.
var durationBuckets = []float64{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60}

// termBuckets are the bucket boundaries, in seconds, of the terms'
// durations: from a second to a day.
var termBuckets = []float64{1, 10, 60, 300, 900, 3600, 4 * 3600, 12 * 3600, 24 * 3600}

// createInstruments creates the Observer's instruments with m.
func (o *Observer) createInstruments(m metric.Meter) error {
	var errs []error
	histogram := func(name, desc string, buckets ...float64) metric.Float64Histogram {
		if len(buckets) == 0 {
			buckets = durationBuckets
		}
		h, err := m.Float64Histogram(name, metric.WithUnit("s"), metric.WithDescription(desc), metric.WithExplicitBucketBoundaries(buckets...))
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
	o.terms = counter("relock.election.terms", "{term}", "Terms that began: campaigns elected.")
	o.proclamations = counter("relock.election.proclamations", "{proclamation}", "Values leaders proclaimed.")
	o.leadersActive = upDown("relock.election.leaders.active", "{term}", "Terms on now: elected, not yet ended.")
	o.termDuration = histogram("relock.election.term.duration", "How long terms lasted, when they end, by outcome.", termBuckets...)
	return errors.Join(errs...)
}
