package check

import (
	"math"
	"sort"

	"github.com/relock-go/relock/test/proof/history"
	"github.com/relock-go/relock/test/proof/nemesis"
)

// fairOrder checks a fair lock's grants against arrival order: a waiter A
// is overtaken by B when B queued after A and was granted before A. B
// queued after A when B was invoked after A's history says A had queued
// (a relock waiter's queued line: its first attempt was answered busy);
// else, when B was invoked more than A's margin after A:
// Config.FairMargin for a relock waiter, Config.FairMarginRedisson for a
// Redisson one, and the longest silence of A's process in between (it
// wrote no line: it was not running, and could not queue). No waiter may
// be overtaken by more than the name's FairBound. A waiter that arrived
// within Config.Slack of the object's first wait is not judged: every
// process moves to a new object at once (the run's start, a new epoch
// after a fault), and that burst delays queueing beyond the margin. A
// waiter is not judged if
// a fault hit it (its process, everyone, or its lock service) while it
// waited, or within one lease and Config.Slack before: such a fault can
// evict a live waiter from the queue (a dropped subscription, a deadline
// passed while it was deaf, a process paused), after which it queues
// again, and its connections take that long to come back. A process just
// spawned in a killed one's place counts so for its own waiters: its cold
// start delays its queueing, which no lock can order. Faults on other
// processes excuse nothing: a paused holder or a killed waiter leaves the
// queue's order as it was; but a waiter whose own process a fault hit just
// before it arrived may have kept its place from before (keptPlace), and
// is no later arrival. Waiters not judged (faulted, or in the burst) are
// counted (FairSkipped).
func (c *nameCheck) fairOrder() {
	after := int64(c.spec.Lease() + c.cfg.Slack)
	arrived := c.arrivals()
	cold := int64(math.MinInt64) // the burst of the first waits ends
	for _, o := range c.ops {
		if o.Kind == history.OpAcquire {
			cold = o.Call + int64(c.cfg.Slack)
			break
		}
	}
	var acq []*history.Operation
	type procOp struct {
		proc int32
		id   int64
	}
	queued := make(map[procOp]int64) // by acquisition: when it had queued at the latest
	for _, o := range c.ops {
		switch {
		case o.Kind == history.OpAcquire && o.Outcome == history.OutcomeOK:
			acq = append(acq, o)
		case o.Kind == history.OpQueued:
			queued[procOp{o.Proc, o.Value}] = o.Call
		}
	}
	for i, a := range acq {
		since := arrived[a]
		proc := c.procName(a.Proc)
		margin := int64(c.cfg.FairMargin)
		if c.run.Procs[a.Proc].Side == "java" {
			margin = int64(c.cfg.FairMarginRedisson)
		}
		if since < cold || c.fi.any(since-after, a.Return, func(f *history.Fault) bool {
			return f.End+after >= since && c.fi.hits(f, proc)
		}) != "" {
			c.res.FairSkipped++
			continue
		}
		c.res.FairWaiters++
		// b queued after a if it was invoked after a had queued: when a's
		// history says so (queued), else a's margin and silence after its
		// invocation.
		later := func(b *history.Operation) bool {
			if q, ok := queued[procOp{a.Proc, a.ID}]; ok && since == a.Call {
				return arrived[b] > q
			}
			return arrived[b] > since+margin+c.silence(a.Proc, since, arrived[b])
		}
		over := 0
		var first *history.Operation
		overtakes := func(b *history.Operation) {
			if later(b) && b.Return < a.Return && !c.keptPlace(b, arrived[b], after) {
				over++
				if first == nil || arrived[b] < arrived[first] {
					first = b
				}
			}
		}
		// Those invoked before a arrived no later, unless a arrived
		// before its invocation.
		for j := i - 1; j >= 0 && acq[j].Call > since+margin; j-- {
			overtakes(acq[j])
		}
		for _, b := range acq[i+1:] {
			if b.Call >= a.Return {
				break
			}
			overtakes(b)
		}
		c.res.MaxOvertaken = max(c.res.MaxOvertaken, over)
		if over > c.spec.FairBound {
			c.findingOf(c.side(a.Proc), "", CheckFairOrder, a.Return, "%s, arrived at %s, was overtaken by %d later arrivals (bound %d), the first %s, arrived %s later",
				proc, c.clock(since), over, c.spec.FairBound, c.procName(first.Proc), dur(arrived[first]-since))
		}
	}
}

// silence returns the longest time within [from, to] in which process p
// wrote no line: a process that wrote nothing was not running (a JVM's
// collection, a starved host), and a waiter of it could not queue then.
func (c *nameCheck) silence(p int32, from, to int64) int64 {
	ts := c.lines[p]
	i := sort.Search(len(ts), func(i int) bool { return ts[i] > from })
	last, longest := from, int64(0)
	for ; i < len(ts) && ts[i] <= to; i++ {
		longest = max(longest, ts[i]-last)
		last = ts[i]
	}
	return max(longest, to-last)
}

// keptPlace reports whether b, arrived at at, may have kept a place in the
// queue from before: a fault hit its own process within after before it
// (a paused waiter granted a turn it could not claim, or evicted while
// alive, goes back to the head), so it is no later arrival.
func (c *nameCheck) keptPlace(b *history.Operation, at, after int64) bool {
	proc := c.procName(b.Proc)
	return c.fi.any(at-after, at, func(f *history.Fault) bool {
		return f.End+after >= at && f.Target == proc && f.Kind != nemesis.Spawn
	}) != ""
}

// arrivals gives each acquisition the time its waiter joined the queue:
// its invocation, or, when the same process's acquisitions of the name
// just before it ended in doubt (a timeout), the first of those's: a
// waiter whose attempt timed out keeps its place in the queue, and its
// process's next acquisition (the same owner) finds it there.
func (c *nameCheck) arrivals() map[*history.Operation]int64 {
	arrived := make(map[*history.Operation]int64)
	pending := make(map[int32]int64) // by process: the arrival of its acquisitions in doubt
	for _, o := range c.ops {
		if o.Kind == history.OpQueued {
			continue
		}
		if o.Kind != history.OpAcquire {
			delete(pending, o.Proc)
			continue
		}
		at, ok := pending[o.Proc]
		if !ok {
			at = o.Call
		}
		arrived[o] = at
		if o.Outcome == history.OutcomeInfo {
			pending[o.Proc] = at
		} else {
			delete(pending, o.Proc)
		}
	}
	return arrived
}
