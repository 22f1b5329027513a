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
// waiters up that long. A fair queue's holders keep its head's deadline a
// fair wait timeout away, so the entry of a waiter killed in the queue
// (its acquisition without an outcome) may hold the others up a fair wait
// timeout after the lock is next free with the entry at the head: each
// such entry excuses that much of one free stretch, the first that needs
// it and begins by the end of the hold at its kill and of the turns of
// the waiters ahead of it (and Config.Slack), measured under
// CauseDeadEntry. Semaphores are not judged here: a killed holder's
// permit is gone for good (permits belong to nobody), so an empty
// semaphore may rightly refuse everyone.
func (c *nameCheck) progress(secs []section) {
	lease, slack := int64(c.spec.Lease()), int64(c.cfg.Slack)
	queued := lease // how long a dead waiter's entry may hold the others up
	fairQueue := c.spec.Workload == history.Fair || c.spec.Workload == history.Election
	if fairQueue {
		queued = max(lease, int64(c.cfg.FairWait))
	}
	type entry struct {
		waiter          *history.Operation
		killed, horizon int64 // horizon: the latest start of the stretch it holds up
	}
	var dead []entry // waiters killed in a fair queue, by kill time
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
			if k, killed := c.fi.killedAt(c.procName(o.Proc), o.Call); killed && fairQueue {
				dead = append(dead, entry{waiter: o, killed: k})
			}
		}
	}
	sort.Slice(dead, func(i, j int) bool { return dead[i].killed < dead[j].killed })
	turnOf := map[[2]int64]int64{} // an acquisition (process, invocation) → when its section ended
	for i := range secs {
		turnOf[[2]int64{int64(secs[i].proc), secs[i].call}] = secs[i].free
	}
	for i := range dead {
		// The entry is at the head once the hold at its kill and the turn
		// of every waiter ahead of it have ended.
		d := &dead[i]
		head := d.killed
		for j := range secs {
			if secs[j].start <= d.killed && d.killed < secs[j].free {
				head = max(head, secs[j].free)
			}
		}
		for _, o := range waiters {
			if o.Call >= d.waiter.Call || (o.Done() && o.Return <= d.killed) {
				continue
			}
			end, granted := turnOf[[2]int64{int64(o.Proc), o.Call}]
			switch {
			case granted:
			case o.Done():
				end = o.Return
			default:
				end = c.lapse(o.Proc, o.Call)
			}
			head = max(head, end)
		}
		d.horizon = head + slack
	}
	sort.Slice(held, func(i, j int) bool { return held[i].from < held[j].from })
	bound := lease + int64(c.spec.Ack()) + slack
	after := queued + slack
	w := 0
	judge := func(from, to int64) {
		worst, longest, since := c.freeWhile(from, to, waiters, &w, after)
		for len(dead) > 0 && dead[0].horizon < from {
			dead = dead[1:]
		}
		if longest > bound && len(dead) > 0 && dead[0].killed < to {
			d := dead[0]
			dead = dead[1:]
			c.findingOf(c.side(d.waiter.Proc), CauseDeadEntry, CheckProgress, since+bound, "%s waited %s from %s while nobody held the lock: %s's entry, killed at %s, may have stood at the queue's head until %s",
				c.procName(worst.Proc), dur(longest), c.clock(since), c.procName(d.waiter.Proc), c.clock(d.killed), c.clock(from+queued))
			worst, longest, since = c.freeWhile(from+queued, to, waiters, &w, after)
		}
		c.res.FreeLongest = max(c.res.FreeLongest, time.Duration(longest))
		if longest > bound {
			c.findingOf(c.side(worst.Proc), "", CheckProgress, since+bound, "%s waited %s from %s while nobody held the lock (bound %s)",
				c.procName(worst.Proc), dur(longest), c.clock(since), dur(bound))
		}
	}
	free := int64(0)
	for i, h := range held {
		if i > 0 && free < h.from {
			judge(free, h.from)
		}
		free = max(free, h.to)
	}
	if len(held) > 0 && free < c.run.End {
		judge(free, c.run.End)
	}
}

// CauseDeadEntry explains a waiter held up on a free fair lock by the
// queue entry of a waiter killed while it waited.
const CauseDeadEntry = "a waiter killed in the queue"

// freeWhile returns the waiter of the stretch [from, to] in which nobody
// held the lock (waiters by invocation, from index *w on) that waited
// longest out of every fault's span and a while after it, how long, and
// since when.
func (c *nameCheck) freeWhile(from, to int64, waiters []*history.Operation, w *int, after int64) (worst *history.Operation, longest, since int64) {
	for *w < len(waiters) && waiters[*w].Done() && waiters[*w].Return <= from {
		*w++
	}
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
	return worst, longest, since
}
