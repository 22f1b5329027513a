package check

import (
	"slices"
	"strings"

	"github.com/relock-go/relock/test/proof/history"
	"github.com/relock-go/relock/test/proof/nemesis"
)

// Renewals is how many holds of locks the watchdog keeps met faults of one
// kind: each hold counted once per kind, by its holder's side.
type Renewals struct {
	Fault    string
	Go, Java int
}

// RenewalsMet counts, for every fault kind of the run, the holds that were
// due a renewal (every third of a lease from the acquisition) while a
// fault of that kind that hits them was on, or within a lease after it
// healed (what a fault does to connections and lock services shows that
// long): the holds whose watchdog the fault met, those that put relock's
// promise to tell a holder of its loss (told) and Redisson's renewals to
// the test. A hold that ended with its process's last line, in a process
// killed later, was due its next renewal within a third of a lease of the
// kill. Kinds injected that met none are listed with 0.
func RenewalsMet(run *history.Run) []Renewals {
	byName := make([][]*history.Operation, len(run.Names))
	procLast := make([]int64, len(run.Procs))
	procs := map[string]bool{}
	for i := range run.Ops {
		o := &run.Ops[i]
		byName[o.Name] = append(byName[o.Name], o)
		procLast[o.Proc] = max(procLast[o.Proc], o.Call, o.Return)
	}
	for _, p := range run.Procs {
		procs[p.Name] = true
	}
	met := map[string]*Renewals{}
	for _, f := range run.Faults {
		if f.Kind != nemesis.Spawn && met[f.Kind] == nil {
			met[f.Kind] = &Renewals{Fault: f.Kind}
		}
	}
	for i, name := range run.Names {
		spec := run.Manifest.Names[name]
		if !lockKind(spec.Workload) {
			continue
		}
		c := &nameCheck{run: run, fi: newFaultIndex(run, procs, spec), procLast: procLast, spec: spec, ops: byName[i]}
		lease := int64(spec.Lease())
		period := lease / 3
		for _, s := range c.sections() {
			proc := run.Procs[s.proc]
			end := s.end
			if k, killed := c.fi.killedAt(proc.Name, s.start); killed && end == procLast[s.proc] {
				end = k + period
			}
			var kinds []string
			c.fi.each(s.start-lease, end, func(f *history.Fault) bool {
				r := met[f.Kind]
				if r == nil || slices.Contains(kinds, f.Kind) || !c.fi.hits(f, proc.Name) ||
					!renewalWithin(s.start, period, max(s.start, f.Start), min(end, f.End+lease)) {
					return true
				}
				kinds = append(kinds, f.Kind)
				if proc.Side == "java" {
					r.Java++
				} else {
					r.Go++
				}
				return true
			})
		}
	}
	out := make([]Renewals, 0, len(met))
	for _, r := range met {
		out = append(out, *r)
	}
	slices.SortFunc(out, func(a, b Renewals) int { return strings.Compare(a.Fault, b.Fault) })
	return out
}

// renewalWithin reports whether a renewal of a hold acquired at start,
// due every period after it, falls within [lo, hi].
func renewalWithin(start, period, lo, hi int64) bool {
	k := max((lo-start+period-1)/period, 1)
	return start+k*period <= hi
}
