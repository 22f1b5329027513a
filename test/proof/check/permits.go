package check

import (
	"slices"
	"sort"
	"strings"

	"github.com/relock-go/relock/test/proof/history"
)

// CauseResentRelease explains a permit too many in a semaphore: a
// Redisson release whose reply did not come within Config.RedissonTimeout
// was sent again, and applied twice.
const CauseResentRelease = "a Redisson release resent"

// resend is a Redisson release of the name that Redisson may have sent
// twice: from at on, its semaphore may count its permits once too many.
type resend struct {
	at, permits int64
}

// permits checks a semaphore: never more than N inside, by sections and
// by the count each holder read when it marked in. An overrun of k
// permits is measured when causes account for k permits: each holder
// inside that may have lost its permit unknowingly (mayHaveLost) for its
// own, each release Redisson may have resent before for one release's.
func (c *nameCheck) permits(secs []section) {
	n := int64(c.spec.Permits)
	resent := c.resentReleases()
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
			side, cause := c.explainOverrun(active, s, inside-n, s.start, resent)
			c.findingOf(side, cause, CheckPermits, s.start,
				"%d permits held at once, of %d, once %s was granted", inside, n, c.procName(s.proc))
		}
	}
	for i := range secs {
		s := &secs[i]
		if s.count <= n {
			continue
		}
		hi := sort.Search(len(secs), func(i int) bool { return secs[i].start > s.counted })
		var inside []*section
		for j := hi - 1; j >= 0 && secs[j].start >= s.start-longest; j-- {
			if secs[j].end >= s.start {
				inside = append(inside, &secs[j])
			}
		}
		side, cause := c.explainOverrun(inside, s, s.count-n, s.counted, resent)
		c.findingOf(side, cause, CheckPermits, s.counted,
			"%s counted %d inside when it marked in, of %d", c.procName(s.proc), s.count, n)
	}
}

// explainOverrun returns what explains extra permits too many at time at,
// among the holders inside (newest: the holder whose grant or count showed
// it) and the resent releases, or "" if the causes found account for
// fewer; and the side of the first holder that accounts for one (of
// newest when none does). The newest holder's own loss explains nothing when its
// acquisition was invoked after every other holder's returned: its permit
// was not yet counted when the others were granted.
func (c *nameCheck) explainOverrun(inside []*section, newest *section, extra, at int64, resent []resend) (side, cause string) {
	var causes []string
	side = c.side(newest.proc)
	covered := int64(0)
	first := false
	for _, h := range inside {
		if h != newest && heldFirst(newest, h) {
			first = true
		}
	}
	for _, h := range inside {
		if h == newest && !first {
			continue
		}
		if cause := c.mayHaveLost(h, at); cause != "" {
			if len(causes) == 0 {
				side = c.side(h.proc)
			}
			covered += h.permits
			causes = append(causes, cause)
		}
	}
	for _, r := range resent {
		if r.at <= at {
			if len(causes) == 0 {
				side = "java"
			}
			covered += r.permits
			causes = append(causes, CauseResentRelease)
		}
	}
	if covered < extra {
		return c.side(newest.proc), ""
	}
	slices.Sort(causes)
	return side, strings.Join(slices.Compact(causes), ", ")
}

// resentReleases returns the name's Redisson releases that Redisson may
// have sent again: those whose reply did not come within
// Config.RedissonTimeout (slow, failed without an answer, or never
// completed), from the first moment a resend could apply. A process
// killed before that moment sent nothing again.
func (c *nameCheck) resentReleases() []resend {
	timeout := c.redissonTimeout()
	var out []resend
	for _, o := range c.ops {
		if o.Kind != history.OpRelease || c.run.Procs[o.Proc].Side != "java" {
			continue
		}
		if o.Outcome.Known() && o.Return-o.Call <= timeout {
			continue
		}
		at := o.Call + timeout
		if k, killed := c.fi.killedAt(c.procName(o.Proc), o.Call); killed && k < at {
			continue
		}
		out = append(out, resend{at: at, permits: max(o.Value, 1)})
	}
	return out
}
