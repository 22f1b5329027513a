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
	// free is when Redis let the hold go at the latest, as far as the
	// history shows: a release's return, a lost, or, when neither says
	// (a release without an answer, a process killed), a lease after its
	// holder was last heard of.
	free int64
}

// sections returns the name's holds, by start.
func (c *nameCheck) sections() []section {
	var out []section
	open := map[int32]int{}   // process → its open section in out
	marked := map[int32]int{} // process → 1: marked in, 2: and lost since
	told := map[int32]int{}   // process → its section a lost ended, until its release
	closeAt := func(p int32, t, free int64) {
		if i, ok := open[p]; ok {
			out[i].end = min(out[i].end, t)
			if marked[p] != 2 {
				out[i].free = free
			}
			delete(open, p)
		}
		delete(marked, p)
	}
	lease := int64(c.spec.Lease())
	for _, o := range c.ops {
		switch o.Kind {
		case history.OpAcquire:
			delete(told, o.Proc)
			closeAt(o.Proc, o.Call, o.Call+lease)
			if o.Outcome == history.OutcomeOK {
				open[o.Proc] = len(out)
				out = append(out, section{proc: o.Proc, mode: o.Mode, permits: max(o.Value, 1), call: o.Call,
					start: o.Return, end: c.procLast[o.Proc], token: o.Token, free: c.lapse(o.Proc, c.procLast[o.Proc])})
			}
		case history.OpLost:
			if i, ok := open[o.Proc]; ok && marked[o.Proc] == 0 {
				told[o.Proc] = i
				closeAt(o.Proc, o.Call, o.Call)
			} else if i, ok := open[o.Proc]; ok {
				marked[o.Proc] = 2
				out[i].free = o.Call
			}
		case history.OpRelease:
			free := o.Return
			if !o.Outcome.Known() {
				free = c.lapse(o.Proc, o.Call)
			}
			if i, ok := told[o.Proc]; ok && o.Outcome != history.OutcomeFail {
				// Told of a loss Redis had not made (a renewal whose reply
				// was lost): it held until this release let go.
				out[i].free = max(out[i].free, free)
			}
			delete(told, o.Proc)
			closeAt(o.Proc, o.Call, free)
		case history.OpEnter:
			if i, ok := open[o.Proc]; ok && o.Outcome != history.OutcomeFail {
				marked[o.Proc] = 1
				if o.Outcome == history.OutcomeOK {
					out[i].count, out[i].counted = o.Count, o.Return
				}
			}
		case history.OpLeave:
			if marked[o.Proc] == 2 {
				closeAt(o.Proc, o.Return, 0) // lost while marked in: inside until it left
			}
			delete(marked, o.Proc)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].start < out[j].start })
	return out
}

// lapse returns when a hold of process p, last heard of at t, lapsed at
// the latest: a lease after t, or after p was killed if it was killed
// later (its watchdog renewed until then).
func (c *nameCheck) lapse(p int32, t int64) int64 {
	if k, killed := c.fi.killedAt(c.procName(p), t); killed {
		t = k
	}
	return t + int64(c.spec.Lease())
}

// lockKind reports whether the workload is a lease lock with a watchdog
// (or a fixed lease): a holder paused past its lease loses it.
func lockKind(w string) bool { return w != history.Semaphore && w != history.PESemaphore }

// mayHaveLost returns what may have ended s's hold without its holder
// knowing, between its acquisition's invocation and by, or "" if nothing
// did. Only causes on s's own hold count:
//   - a fixed lease (or a permit's lease) run out by by;
//   - a fault on s's lock service that may lose acquisitions
//     (Manifest.LosesLocks), or the ones no replica acknowledged when s
//     was promised none (Manifest.LosesUnacked: a semaphore's, a Redisson
//     holder's), whose span (lostBy) overlaps;
//   - for a lease lock: a pause of s's own process; or, for a Redisson
//     holder (which is told nothing when its lease is lost), a fault that
//     hits its process or its Redis, or a pause just before it in which
//     its process held the lock (renewedAcrossPause).
//
// A relock holder that was not paused is told (Lost) no later than Redis
// expires its lock, and its section ends there: nothing else explains an
// overlap. A fault on another process explains nothing.
func (c *nameCheck) mayHaveLost(s *section, by int64) string {
	if c.spec.Expires() && by >= s.call+int64(c.spec.Lease()) {
		return "lease run out"
	}
	proc := c.run.Procs[s.proc]
	m := c.run.Manifest
	if cause := c.lostBy(s.call, by, func(f *history.Fault) bool {
		return m.LosesLocksUnder(f.Kind) || m.LosesUnackedUnder(f.Kind) && (proc.Side == "java" || !lockKind(c.spec.Workload))
	}); cause != "" {
		return cause
	}
	if cause := c.fi.any(s.call, by, func(f *history.Fault) bool {
		switch {
		case !lockKind(c.spec.Workload):
			return false
		case f.Kind == "pause" && f.Target == proc.Name:
			return true
		}
		return proc.Side == "java" && f.Kind != "kill" && c.fi.hits(f, proc.Name)
	}); cause != "" {
		return cause
	}
	if c.renewedAcrossPause(s) {
		return CauseRenewalAfterPause
	}
	return ""
}

// overlap is two processes' sections that overlapped during [from, to],
// explained by cause on side (that of the holder whose hold broke).
type overlap struct {
	a, b        int32
	from, to    int64
	side, cause string
}

// heldFirst reports whether s may have held before other was granted:
// unless s's acquisition was invoked after other's returned, Redis may
// have granted s first.
func heldFirst(s, other *section) bool { return s.call < other.start }

// exclusion checks that no two sections overlap (for rw: no writer's
// beside any other), and counts those that do: measured when the holder
// whose hold broke may have lost it unknowingly before the other was
// granted (mayHaveLost), violations otherwise. The hold that broke is the
// earlier one's, or the later one's if its acquisition was in flight when
// the earlier one's returned (Redis may have granted it first).
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
			side, cause := c.side(a.proc), c.mayHaveLost(a, s.start)
			if cause == "" && heldFirst(s, a) {
				if cause = c.mayHaveLost(s, a.start); cause != "" {
					side = c.side(s.proc)
				}
			}
			to := min(a.end, s.end)
			if cause != "" {
				c.overlaps = append(c.overlaps, overlap{a.proc, s.proc, s.start, to, side, cause})
			}
			c.findingOf(side, cause, CheckExclusion, s.start, "%s %s (from %s) and %s %s (from %s) held it together for %s",
				c.procName(a.proc), holdName(a), c.clock(a.start), c.procName(s.proc), holdName(s), c.clock(s.start), dur(to-s.start))
		}
		active = append(active, s)
	}
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
