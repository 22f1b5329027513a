package check

import (
	"sort"
	"time"

	"github.com/relock-go/relock/test/proof/history"
)

// CheckWoken is the check of a release's message: a relock waiter of a
// lock its holder released is woken, not left to sleep out the lease.
const CheckWoken = "woken"

// wokenKind reports whether a workload's releases publish the message
// that wakes its waiters (a reentrant lock's release).
func wokenKind(w string) bool { return w == history.Plain || w == history.Fenced }

// woken checks every release that returned ok (Go or Java: both publish
// the unlock message) after which a relock waiter, invoked before the
// release returned, still waited Config.Wake and its wait for a replica
// later (its bound): someone must have been granted the lock by then. A
// grant is dated no earlier than Config.Wake before its acquisition
// returned (the same allowance for a reply), or at its invocation when its
// outcome is unknown or a fault hit its process (a paused or cut-off
// waiter may be granted the lock and hold it unheard of, until its lease
// runs out: Redisson undoes a grant whose reply came after the wait, and
// reports a failure); one that failed untouched by faults held nothing; the lock was free from the release to the
// first of those. When it was free past the bound, the waiter was not
// woken: a waiter that missed the message sleeps out the TTL it was told,
// up to a lease. A waiter that a fault hit (its process, everyone, its
// lock service) from a lease and Config.Slack before the release to its
// bound is not judged: a reset or a partition may have cut its
// subscription.
func (c *nameCheck) woken() {
	if !wokenKind(c.spec.Workload) {
		return
	}
	var acqs []*history.Operation // by invocation
	var longest int64             // the longest acquisition
	for _, o := range c.ops {
		if o.Kind == history.OpAcquire {
			acqs = append(acqs, o)
			longest = max(longest, c.opEnd(o)-o.Call)
		}
	}
	wake, after := int64(c.cfg.Wake), int64(c.spec.Lease()+c.cfg.Slack)
	for _, r := range c.ops {
		if r.Kind != history.OpRelease || r.Outcome != history.OutcomeOK {
			continue
		}
		from := r.Return
		bound := from + wake + int64(c.spec.Ack())
		lo := sort.Search(len(acqs), func(i int) bool { return acqs[i].Call >= r.Call-longest })
		var waiter *history.Operation
		granted := int64(-1) // the first grant after r began, as early as it may have been
		first := int64(-1)   // the first grant's return
		for _, x := range acqs[lo:] {
			if x.Call >= bound {
				break
			}
			if waiter == nil && x.Call < from && c.opEnd(x) > bound && c.side(x.Proc) == "go" && x.Proc != r.Proc && !c.faulted(x, from-after, bound) {
				waiter = x // a fail after the bound still waited
			}
			hit := c.faulted(x, x.Call, c.opEnd(x))
			if x.Outcome == history.OutcomeFail && !hit || x.Done() && x.Return <= r.Call {
				continue
			}
			at := x.Call
			if x.Outcome == history.OutcomeOK && !hit {
				at = max(x.Call, x.Return-wake)
			}
			if granted < 0 || at < granted {
				granted = at
			}
			if x.Outcome == history.OutcomeOK && (first < 0 || x.Return < first) {
				first = x.Return
			}
		}
		if waiter == nil {
			continue
		}
		c.res.Woken++
		if granted >= 0 && granted <= bound {
			if first >= 0 && first <= bound+wake { // a grant heard in time
				c.res.WakeLongest = max(c.res.WakeLongest, time.Duration(max(first-from, 0)))
			}
			continue
		}
		c.findingOf("go", "", CheckWoken, bound, "%s's acquire, invoked at %s, still waited %s after %s's release returned at %s, and nobody was granted the lock meanwhile",
			c.procName(waiter.Proc), c.clock(waiter.Call), dur(bound-from), c.procName(r.Proc), c.clock(from))
	}
}

// faulted reports whether a fault hit o's process (or everyone, or o's
// lock service) during [from, to].
func (c *nameCheck) faulted(o *history.Operation, from, to int64) bool {
	proc := c.procName(o.Proc)
	return c.fi.any(from, to, func(f *history.Fault) bool { return c.fi.hits(f, proc) }) != ""
}

// opEnd returns when o ended as far as the history shows: its return, or,
// without one, its process's kill after it or the run's end.
func (c *nameCheck) opEnd(o *history.Operation) int64 {
	if o.Done() {
		return o.Return
	}
	if k, killed := c.fi.killedAt(c.procName(o.Proc), o.Call); killed {
		return k
	}
	return c.run.End
}
