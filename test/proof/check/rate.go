package check

import (
	"time"

	"github.com/relock-go/relock/test/proof/history"
)

// CheckRate is the rate limiter's check: no window of one interval holds
// more grants than the limit.
const CheckRate = "rate"

// rate checks a rate limiter (NameSpec.Permits per NameSpec.IntervalMS): a
// grant took its permits (the acquire's value) at some moment between its
// invocation and its return, so grants whose spans all fit in less than an
// interval, less the clocks' allowance (permits are stamped with the
// caller's clock, which relock keeps within 1% of the interval of Redis's,
// and Redisson takes from the same host), took their permits within one
// interval: more than the limit is an over-grant. It is measured when a
// fault that may lose the limiter's permits (restarts and failovers that
// lose acquisitions or what no replica acknowledged: the limiter never
// waits for replicas) was on during the window or up to a lease and
// Config.Slack before it.
func (c *nameCheck) rate() {
	var grants []*history.Operation
	for _, o := range c.ops {
		if o.Kind == history.OpAcquire && o.Outcome == history.OutcomeOK {
			grants = append(grants, o)
		}
	}
	limit, interval := int64(c.spec.Permits), c.spec.IntervalMS*int64(time.Millisecond)
	window := interval - interval/50 - int64(rateClockSlack)
	m := c.run.Manifest
	reported := int64(0) // the end of the last over-grant reported
	for i, a := range grants {
		if a.Call < reported {
			continue
		}
		// The grants invoked after a whose spans fit in a window from
		// a's invocation, a's included.
		sum, end := int64(0), a.Return
		for _, b := range grants[i:] {
			if b.Call-a.Call >= window {
				break
			}
			if b.Return-a.Call < window {
				sum += max(b.Value, 1)
				end = max(end, b.Return)
			}
		}
		if sum <= limit {
			continue
		}
		reported = end
		cause := c.lostBy(a.Call, end, func(f *history.Fault) bool {
			return m.LosesLocksUnder(f.Kind) || m.LosesUnackedUnder(f.Kind)
		})
		c.finding(cause, CheckRate, end, "%d permits granted within %s (from %s, %s first), over the limit of %d per %s",
			sum, dur(end-a.Call), c.clock(a.Call), c.procName(a.Proc), limit, dur(interval))
	}
}

// rateClockSlack is added to the clocks' allowance: the moments recorded
// come from the host's clock read around the call, not from the stamp.
const rateClockSlack = time.Millisecond
