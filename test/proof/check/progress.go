package check

import (
	"sort"
	"time"

	"github.com/relock-go/relock/test/proof/history"
)

// progress checks that a lock with waiters and no holder is granted: no
// waiter waits longer than one lease, its wait for a replica and
// Config.Slack while nobody holds the lock (a waiter that missed the
// release's message sleeps at most the lock's lease before it tries
// again). Being told in time (liveness) is not enough: a lock that
// refused every waiter for seconds after its holder left fails here.
//
// Nobody holds the lock between one section's free (sections) and the
// next grant; an acquisition of unknown outcome may have held it, until a
// lease after it returned (for a fair lock, a fair wait timeout: a waiter
// that left its entry in the queue is passed over only when its deadline
// passes). The clock starts again after each fault on the name's lock
// service or any process, a lease (for a fair lock, a fair wait timeout if
// longer) and Config.Slack after it healed: a paused holder, a killed or
// deaf waiter at a fair queue's head, an emptied server, each holds
// waiters up that long. Semaphores are not judged here: a killed holder's permit is gone
// for good (permits belong to nobody), so an empty semaphore may rightly
// refuse everyone.
func (c *nameCheck) progress(secs []section) {
	lease, slack := int64(c.spec.Lease()), int64(c.cfg.Slack)
	queued := lease // how long a dead waiter's entry may hold the others up
	if c.spec.Workload == history.Fair || c.spec.Workload == history.Election {
		queued = max(lease, int64(c.cfg.FairWait))
	}
	type busy struct{ from, to int64 }
	var held []busy
	for i := range secs {
		held = append(held, busy{secs[i].start, secs[i].free})
	}
	var waiters []*history.Operation
	for _, o := range c.ops {
		if o.Kind != history.OpAcquire {
			continue
		}
		waiters = append(waiters, o)
		switch o.Outcome {
		case history.OutcomeInfo:
			held = append(held, busy{o.Call, o.Return + queued})
		case history.OutcomeNone:
			held = append(held, busy{o.Call, c.lapse(o.Proc, o.Call) + queued - lease})
		}
	}
	sort.Slice(held, func(i, j int) bool { return held[i].from < held[j].from })
	bound := lease + int64(c.spec.Ack()) + slack
	after := queued + slack
	w := 0
	free := int64(0)
	for i, h := range held {
		if i > 0 && free < h.from {
			c.freeWhile(free, h.from, waiters, &w, bound, after)
		}
		free = max(free, h.to)
	}
	if len(held) > 0 && free < c.run.End {
		c.freeWhile(free, c.run.End, waiters, &w, bound, after)
	}
}

// freeWhile judges the waiters of the stretch [from, to] in which nobody
// held the lock (waiters by invocation, from index *w on).
func (c *nameCheck) freeWhile(from, to int64, waiters []*history.Operation, w *int, bound, after int64) {
	for *w < len(waiters) && waiters[*w].Done() && waiters[*w].Return <= from {
		*w++
	}
	var worst *history.Operation
	longest, since := int64(0), int64(0)
	for _, o := range waiters[*w:] {
		if o.Call >= to {
			break
		}
		end := o.Return
		if !o.Done() {
			end = c.run.End
			if k, killed := c.fi.killedAt(c.procName(o.Proc), o.Call); killed {
				end = k
			}
		}
		// The longest stretch of [t0, t1] out of every fault's span.
		t0, t1 := max(from, o.Call), min(to, end)
		gap := func(until int64) {
			if until-t0 > longest {
				worst, longest, since = o, until-t0, t0
			}
		}
		c.fi.each(t0-after, t1, func(f *history.Fault) bool {
			gap(min(f.Start, t1))
			t0 = max(t0, f.End+after)
			return true
		})
		gap(t1)
	}
	c.res.FreeLongest = max(c.res.FreeLongest, time.Duration(longest))
	if worst != nil && longest > bound {
		c.findingOf(c.side(worst.Proc), "", CheckProgress, since+bound, "%s waited %s from %s while nobody held the lock (bound %s)",
			c.procName(worst.Proc), dur(longest), c.clock(since), dur(bound))
	}
}
