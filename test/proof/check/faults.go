package check

import (
	"sort"

	"github.com/relock-go/relock/test/proof/history"
)

// faultIndex finds the faults of one name that overlap a span of time.
type faultIndex struct {
	list   []history.Fault // by Start
	maxDur int64
	procs  map[string]bool // the run's process names
}

// newFaultIndex returns the index of the faults that concern a name of
// spec: all but those aimed at another lock service than the name's (a
// target that is some name's NameSpec.Redis).
func newFaultIndex(run *history.Run, procs map[string]bool, spec history.NameSpec) *faultIndex {
	services := map[string]bool{}
	for _, s := range run.Manifest.Names {
		services[s.Redis] = s.Redis != ""
	}
	fi := &faultIndex{procs: procs}
	for _, f := range run.Faults {
		if services[f.Target] && f.Target != spec.Redis {
			continue
		}
		fi.list = append(fi.list, f)
		fi.maxDur = max(fi.maxDur, f.End-f.Start)
	}
	return fi
}

// each calls fn with every fault overlapping [from, to], by start, until fn
// returns false.
func (fi *faultIndex) each(from, to int64, fn func(*history.Fault) bool) {
	i := sort.Search(len(fi.list), func(i int) bool { return fi.list[i].Start >= from-fi.maxDur })
	for ; i < len(fi.list) && fi.list[i].Start <= to; i++ {
		if f := &fi.list[i]; f.End >= from && !fn(f) {
			return
		}
	}
}

// any returns the kind of the first fault overlapping [from, to] for
// which match holds, or "".
func (fi *faultIndex) any(from, to int64, match func(*history.Fault) bool) string {
	kind := ""
	fi.each(from, to, func(f *history.Fault) bool {
		if match(f) {
			kind = f.Kind
			return false
		}
		return true
	})
	return kind
}

// hits reports whether f hits process proc: its target is proc, or is
// no process of the run (Redis, everything).
func (fi *faultIndex) hits(f *history.Fault, proc string) bool {
	return f.Target == proc || !fi.procs[f.Target]
}

// killedAt returns when proc was first killed at or after t, if it was.
func (fi *faultIndex) killedAt(proc string, t int64) (int64, bool) {
	for i := range fi.list {
		if f := &fi.list[i]; f.Kind == "kill" && f.Target == proc && f.Start >= t {
			return f.Start, true
		}
	}
	return 0, false
}
