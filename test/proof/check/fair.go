package check

import (
	"github.com/relock-go/relock/test/proof/history"
)

// fairOrder checks a fair lock's grants against arrival order: a waiter A
// is overtaken by B when B was invoked more than Config.FairMargin after A
// (so it queued after A) and granted before A. No waiter may be overtaken
// by more than the name's FairBound. A waiter is not judged if it waited
// during a fault, or within one lease and Config.Slack after one: a fault
// can evict a live waiter from the queue (a dropped subscription, a
// deadline passed while it was deaf, a process paused), after which it
// queues again, and its connections take that long to come back.
func (c *nameCheck) fairOrder() {
	margin := int64(c.cfg.FairMargin)
	after := int64(c.spec.Lease() + c.cfg.Slack)
	var acq []*history.Operation
	for _, o := range c.ops {
		if o.Kind == history.OpAcquire && o.Outcome == history.OutcomeOK {
			acq = append(acq, o)
		}
	}
	for i, a := range acq {
		if c.fi.any(a.Call-after, a.Return, func(f *history.Fault) bool { return f.End+after >= a.Call }) != "" {
			continue
		}
		c.res.FairWaiters++
		over := 0
		var first *history.Operation
		for _, b := range acq[i+1:] {
			if b.Call >= a.Return {
				break
			}
			if b.Call > a.Call+margin && b.Return < a.Return {
				over++
				if first == nil {
					first = b
				}
			}
		}
		c.res.MaxOvertaken = max(c.res.MaxOvertaken, over)
		if over > c.spec.FairBound {
			c.finding("", CheckFairOrder, a.Return, "%s, invoked at %s, was overtaken by %d later arrivals (bound %d), the first %s, invoked %s later",
				c.procName(a.Proc), c.clock(a.Call), over, c.spec.FairBound, c.procName(first.Proc), dur(first.Call-a.Call))
		}
	}
}
