package fleet

import (
	"fmt"
	"math"
	"slices"
	"time"
)

// Run is one run of the job: its instance, its start and its end (the
// instance's kill, for a run cut short by it; zero when it never ended).
type Run struct {
	Instance   int
	Start, End time.Time
}

// Runs pairs the start and end events of each run; a run of a killed
// instance that did not end ends at the kill.
func Runs(events []Event, killed map[int]time.Time) []Run {
	type key struct {
		i int
		n int64
	}
	at := make(map[key]int)
	var runs []Run
	for _, e := range events {
		k := key{e.Instance, e.N}
		switch e.Kind {
		case "start":
			at[k] = len(runs)
			runs = append(runs, Run{Instance: e.Instance, Start: e.At})
		case "end":
			if j, ok := at[k]; ok {
				runs[j].End = e.At
			}
		}
	}
	for j, r := range runs {
		if k, ok := killed[r.Instance]; ok && r.End.IsZero() {
			runs[j].End = k
		}
	}
	slices.SortFunc(runs, func(a, b Run) int { return a.Start.Compare(b.Start) })
	return runs
}

// Tally is what the fleet ran of each tick of its schedule.
type Tally struct {
	Ticks    int // ticks judged
	Once     int // run exactly once
	Twice    int // run more than once
	Busy     int // not run, while a run of the job (of an earlier tick) was on
	Missed   int // not run, and no run on
	Late     int // run more than once, fired further apart than their claim
	Overlaps int // pairs of runs that overlapped in time
}

func (t Tally) String() string {
	return fmt.Sprintf("%d ticks: %d once, %d more than once, %d skipped during a run, %d missed, %d run again when fired later than their claim; %d overlapping runs",
		t.Ticks, t.Once, t.Twice, t.Busy, t.Missed, t.Late, t.Overlaps)
}

// TickOf is the tick that a run started at start by an instance whose
// ticks are offset from s's by offset belongs to: the nearest.
func TickOf(s Schedule, offset time.Duration, start time.Time) int {
	return int(math.Round(float64(start.Sub(s.StartAt.Add(offset))) / float64(s.Interval)))
}

// Count judges runs against the ticks of s that every instance (offsets)
// fired before the end: from tick `from` on. A tick run more than once
// that is among late is Late rather than Twice.
func Count(runs []Run, s Schedule, offsets []time.Duration, from int, late map[int]bool) Tally {
	last := slices.Max(offsets)
	n := int((s.For - last - s.Interval/2) / s.Interval)
	byTick := make(map[int]int)
	for _, r := range runs {
		byTick[TickOf(s, offsets[r.Instance], r.Start)]++
	}
	var t Tally
	for k := from; k < n; k++ {
		t.Ticks++
		switch c := byTick[k]; {
		case c == 1:
			t.Once++
		case c > 1 && late[k]:
			t.Late++
		case c > 1:
			t.Twice++
		case onAt(runs, s.StartAt.Add(time.Duration(k)*s.Interval+last)):
			t.Busy++
		default:
			t.Missed++
		}
	}
	for i, a := range runs {
		for _, b := range runs[i+1:] {
			if a.End.IsZero() || b.Start.Before(a.End) {
				t.Overlaps++
			}
		}
	}
	return t
}

// onAt reports whether a run was on at time at.
func onAt(runs []Run, at time.Time) bool {
	for _, r := range runs {
		if !r.Start.After(at) && (r.End.IsZero() || r.End.After(at)) {
			return true
		}
	}
	return false
}

// Late returns the ticks that the instances (offsets) fired further apart
// than a relockgocron.Locker with splay claims them, less rtt: the claim
// of tick k lasts the splay, but at most half the time between an
// instance's firings of ticks k-1 and k (the least over the instances).
// A scheduler that fires that late may run the tick again: that is the
// Locker's rule, which these ticks do not meet.
func Late(events []Event, s Schedule, offsets []time.Duration, splay, rtt time.Duration) map[int]bool {
	type key struct{ i, k int }
	fired := make(map[key]time.Time)
	ticks := make(map[int][]time.Time)
	for _, e := range events {
		if e.Kind == "fire" {
			k := TickOf(s, offsets[e.Instance], e.At)
			fired[key{e.Instance, k}] = e.At
			ticks[k] = append(ticks[k], e.At)
		}
	}
	late := make(map[int]bool)
	for k, at := range ticks {
		claim := splay
		for i := range offsets {
			prev, ok1 := fired[key{i, k - 1}]
			cur, ok2 := fired[key{i, k}]
			if ok1 && ok2 {
				claim = min(claim, cur.Sub(prev)/2)
			}
		}
		if slices.MaxFunc(at, time.Time.Compare).Sub(slices.MinFunc(at, time.Time.Compare)) >= claim-rtt {
			late[k] = true
		}
	}
	return late
}
