package check

import (
	"slices"

	"github.com/relock-go/relock/test/proof/history"
)

// CheckLatch is the count-down latch's check: no waiter released before
// the count reached zero, and every waiter released once it had.
const CheckLatch = "latch"

// latchRound is one round of a latch object: its latch's count set
// (write), its count-downs (release) and its waits (acquire), the round
// being the operations' token.
type latchRound struct {
	set          *history.Operation
	downs, waits []*history.Operation
}

// latch checks each round of a latch object (NameSpec.Permits is each
// round's count):
//   - a wait that returned ok came after the count reached zero: at least
//     the count of count-downs that may have taken effect (not fail) were
//     invoked before it returned; else it was released early, which a
//     fault that may lose the count (restarts and failovers that lose
//     acquisitions or what no replica acknowledged) explains;
//   - a wait that failed (its wait ended) did not end more than a lease
//     and Config.Slack after the count-downs had all returned ok: a waiter
//     that hears no message reads the count again after a lease. A fault
//     that hits its process or its lock service since explains it.
func (c *nameCheck) latch() {
	rounds := map[int64]*latchRound{}
	for _, o := range c.ops {
		r := rounds[o.Token]
		if r == nil {
			r = &latchRound{}
			rounds[o.Token] = r
		}
		switch o.Kind {
		case history.OpWrite:
			r.set = o
		case history.OpRelease:
			r.downs = append(r.downs, o)
		case history.OpAcquire:
			r.waits = append(r.waits, o)
		}
	}
	count := c.spec.Permits
	grace := int64(c.spec.Lease() + c.cfg.Slack)
	m := c.run.Manifest
	for round, r := range rounds {
		var zeroAt int64 // when the last count-down returned, if all did ok
		var oks []int64
		for _, d := range r.downs {
			if d.Outcome == history.OutcomeOK {
				oks = append(oks, d.Return)
			}
		}
		if len(oks) >= count {
			slices.Sort(oks)
			zeroAt = oks[count-1]
		}
		for _, w := range r.waits {
			proc := c.procName(w.Proc)
			switch w.Outcome {
			case history.OutcomeOK:
				n := 0
				for _, d := range r.downs {
					if d.Call < w.Return && d.Outcome != history.OutcomeFail {
						n++
					}
				}
				if n >= count {
					continue
				}
				from := w.Call
				if r.set != nil {
					from = r.set.Call
				}
				cause := c.lostBy(from, w.Return, func(f *history.Fault) bool {
					return m.LosesLocksUnder(f.Kind) || m.LosesUnackedUnder(f.Kind)
				})
				c.finding(cause, CheckLatch, w.Return, "%s's wait in round %d, invoked at %s, was released at %s after %d count-downs of %d",
					proc, round, c.clock(w.Call), c.clock(w.Return), n, count)
			case history.OutcomeFail:
				if zeroAt == 0 || w.Return <= zeroAt+grace {
					continue
				}
				cause := c.fi.any(w.Call, w.Return, func(f *history.Fault) bool { return c.fi.hits(f, proc) })
				c.finding(cause, CheckLatch, w.Return, "%s's wait in round %d, invoked at %s, gave up at %s though the count reached zero by %s",
					proc, round, c.clock(w.Call), c.clock(w.Return), c.clock(zeroAt))
			}
		}
	}
}
