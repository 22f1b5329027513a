package check

import (
	"fmt"
	"sort"

	"github.com/relock-go/relock/test/proof/history"
)

// section is one hold: from its acquire's ok to its release's invoke, its
// lost, or its process's last line, whichever came first; a holder marked
// in when it learns of the loss is inside until it leaves.
type section struct {
	proc         int32
	mode         history.Mode
	permits      int64
	call         int64 // the acquire's invoke
	start, end   int64
	token, count int64
	counted      int64 // when the count was read: its enter's return
}

// sections returns the name's holds, by start.
func (c *nameCheck) sections() []section {
	var out []section
	open := map[int32]int{}   // process → its open section in out
	marked := map[int32]int{} // process → 1: marked in, 2: and lost since
	closeAt := func(p int32, t int64) {
		if i, ok := open[p]; ok {
			out[i].end = min(out[i].end, t)
			delete(open, p)
		}
		delete(marked, p)
	}
	for _, o := range c.ops {
		switch o.Kind {
		case history.OpAcquire:
			closeAt(o.Proc, o.Call)
			if o.Outcome == history.OutcomeOK {
				open[o.Proc] = len(out)
				out = append(out, section{proc: o.Proc, mode: o.Mode, permits: max(o.Value, 1), call: o.Call,
					start: o.Return, end: c.procLast[o.Proc], token: o.Token})
			}
		case history.OpLost:
			if marked[o.Proc] == 0 {
				closeAt(o.Proc, o.Call)
			} else {
				marked[o.Proc] = 2
			}
		case history.OpRelease:
			closeAt(o.Proc, o.Call)
		case history.OpEnter:
			if i, ok := open[o.Proc]; ok && o.Outcome != history.OutcomeFail {
				marked[o.Proc] = 1
				if o.Outcome == history.OutcomeOK {
					out[i].count, out[i].counted = o.Count, o.Return
				}
			}
		case history.OpLeave:
			if marked[o.Proc] == 2 {
				closeAt(o.Proc, o.Return) // lost while marked in: inside until it left
			}
			delete(marked, o.Proc)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].start < out[j].start })
	return out
}

// lockKind reports whether the workload is a lease lock with a watchdog
// (or a fixed lease): a holder paused past its lease loses it.
func lockKind(w string) bool { return w != history.Semaphore && w != history.PESemaphore }

// mayHaveLost returns what may have ended s's hold without its holder
// knowing by time to, or "" if nothing did:
//   - a fixed lease (or a permit's lease) run out;
//   - a fault that may lose acquisitions (Manifest.LosesLocks), or the
//     unacknowledged ones of a semaphore or a Redisson holder
//     (Manifest.LosesUnacked), or did so shortly before (lostBy);
//   - for a lease lock: a pause of its process; or, for a Redisson
//     holder (which is told nothing when its lease is lost), any fault
//     that hits its process.
//
// A relock holder that was not paused is told (Lost) no later than Redis
// expires its lock, and its section ends there: nothing else explains an
// overlap.
func (c *nameCheck) mayHaveLost(s *section, to int64) string {
	if c.spec.Expires() && to >= s.call+int64(c.spec.Lease()) {
		return "lease run out"
	}
	proc := c.run.Procs[s.proc]
	m := c.run.Manifest
	if cause := c.lostBy(s.call, to, func(f *history.Fault) bool {
		return m.LosesLocksUnder(f.Kind) || m.LosesUnackedUnder(f.Kind) && (proc.Side == "java" || !lockKind(c.spec.Workload))
	}); cause != "" {
		return cause
	}
	return c.fi.any(s.call, to, func(f *history.Fault) bool {
		switch {
		case !lockKind(c.spec.Workload):
			return false
		case f.Kind == "pause" && f.Target == proc.Name:
			return true
		}
		return proc.Side == "java" && f.Kind != "kill" && c.fi.hits(f, proc.Name)
	})
}

// exclusion checks that no two sections overlap (for rw: no writer's
// beside any other), and counts those that do: measured when one holder
// may have lost its hold unknowingly (mayHaveLost), violations otherwise.
func (c *nameCheck) exclusion(secs []section) {
	var active []*section
	for i := range secs {
		s := &secs[i]
		kept := active[:0]
		for _, a := range active {
			if a.end > s.start {
				kept = append(kept, a)
			}
		}
		active = kept
		for _, a := range active {
			if a.mode == history.ModeRead && s.mode == history.ModeRead {
				continue
			}
			c.res.Overlaps++
			to := min(a.end, s.end)
			cause := c.mayHaveLost(a, to)
			if cause == "" {
				cause = c.mayHaveLost(s, to)
			}
			c.finding(cause, CheckExclusion, s.start, "%s %s (from %s) and %s %s (from %s) held it together for %s",
				c.procName(a.proc), holdName(a), c.clock(a.start), c.procName(s.proc), holdName(s), c.clock(s.start), dur(to-s.start))
		}
		active = append(active, s)
	}
}

// permits checks a semaphore: never more than N inside, by sections and
// by the count each holder read when it marked in. An overrun is measured
// when a holder inside then may have lost its permit unknowingly.
func (c *nameCheck) permits(secs []section) {
	n := int64(c.spec.Permits)
	longest := int64(0)
	for i := range secs {
		longest = max(longest, secs[i].end-secs[i].start)
	}
	var active []*section
	for i := range secs {
		s := &secs[i]
		kept := active[:0]
		inside := s.permits
		for _, a := range active {
			if a.end > s.start {
				kept = append(kept, a)
				inside += a.permits
			}
		}
		active = append(kept, s)
		c.res.MaxInside = max(c.res.MaxInside, int(inside))
		if inside > n {
			c.finding(c.explainOverrun(secs, longest, s.start, s.start), CheckPermits, s.start, "%d permits held at once, of %d, once %s was granted", inside, n, c.procName(s.proc))
		}
	}
	for i := range secs {
		if s := &secs[i]; s.count > n {
			c.finding(c.explainOverrun(secs, longest, s.start, s.counted), CheckPermits, s.counted, "%s counted %d inside when it marked in, of %d", c.procName(s.proc), s.count, n)
		}
	}
}

// explainOverrun returns what may explain more than N holders inside
// during [from, to]: a holder inside that may have lost its permit
// unknowingly (explainInside), or a Redisson release of the object before
// to that Redisson may have sent twice (a count of one permit too many
// stays so), or "".
func (c *nameCheck) explainOverrun(secs []section, longest, from, to int64) string {
	if cause := c.explainInside(secs, longest, from, to); cause != "" {
		return cause
	}
	for _, o := range c.ops {
		if o.Call >= to {
			break
		}
		if o.Kind != history.OpRelease || c.run.Procs[o.Proc].Side != "java" {
			continue
		}
		if o.Outcome == history.OutcomeInfo || o.Outcome == history.OutcomeNone || o.Return-o.Call > int64(c.cfg.RedissonTimeout) {
			return "a Redisson release resent"
		}
	}
	return ""
}

// explainInside returns what may have ended the hold of a holder inside
// during [from, to] unknowingly by to, or "" (longest: the longest
// section).
func (c *nameCheck) explainInside(secs []section, longest, from, to int64) string {
	hi := sort.Search(len(secs), func(i int) bool { return secs[i].start > to })
	for i := hi - 1; i >= 0 && secs[i].start >= from-longest; i-- {
		if s := &secs[i]; s.end >= from {
			if cause := c.mayHaveLost(s, to); cause != "" {
				return cause
			}
		}
	}
	return ""
}

func holdName(s *section) string {
	if s.mode != history.ModeNone {
		return s.mode.String()
	}
	if s.token != 0 {
		return fmt.Sprintf("token %d", s.token)
	}
	return "hold"
}
