package check

import "github.com/relock-go/relock/test/proof/history"

// CheckTold is the check of relock's promise to a holder: it learns that
// its lock is gone (Lost, its Context ended) before Redis lets anyone
// else in.
const CheckTold = "told"

// told checks every relock holder of a lock against every holder, Go or
// Java, granted the lock while it held (a writer's, or anyone's beside a
// writer), by acquisitions invoked after the relock holder's returned, so
// granted after it: such an acquisition must have returned after the
// relock holder released the lock or recorded its loss ("lost", written as
// Lost closed, which also ends its Context). Only the relock holder's own
// causes explain one that did not (mayHaveLost: its process paused past
// its lease, its lock service lost the lock): a fault on the later holder,
// or on any other process, tells the relock holder nothing. One finding
// per hold, at the first holder that got in; none where exclusion found a
// violation already (the same two holders), so that a wrong history fails
// once: told runs after exclusion.
func (c *nameCheck) told(secs []section) {
	if !lockKind(c.spec.Workload) {
		return
	}
	failed := map[int64]bool{} // the later holders' starts of exclusion's violations
	for _, f := range c.findings {
		if f.Check == CheckExclusion && f.Severity == Violation {
			failed[f.At] = true
		}
	}
	for i := range secs {
		a := &secs[i]
		if c.run.Procs[a.proc].Side != "go" {
			continue
		}
		for j := i + 1; j < len(secs) && secs[j].start < a.end; j++ {
			s := &secs[j]
			if s.call < a.start || a.mode == history.ModeRead && s.mode == history.ModeRead {
				continue
			}
			if c.mayHaveLost(a, s.start) != "" || failed[s.start] {
				break
			}
			c.finding("", CheckTold, s.start,
				"%s %s (from %s) was neither told of its loss nor had released when %s %s got in, %s before its release, its loss or its last line",
				c.procName(a.proc), holdName(a), c.clock(a.start), c.procName(s.proc), holdName(s), dur(a.end-s.start))
			break
		}
	}
}
