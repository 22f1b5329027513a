package relockgocron

import (
	"context"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/relock-go/relock/rlock/relockgocron/internal/fleet"
	"github.com/relock-go/relock/test/redistest"
)

// The fleet tests run three gocron schedulers, each in a process of its
// own (this test binary, see TestMain), on a redis-server of the test's,
// and judge every tick of their schedule from what each printed. They run
// in parallel: each takes its schedule's length.

// startDelay is how long after the fleet is started its first tick comes:
// time for the processes to start (and an Elector to be elected).
const startDelay = 3 * time.Second

// scenario is a fleet's configuration.
type scenario struct {
	mode    string // locker or elector
	sched   fleet.Schedule
	offsets []time.Duration // each instance's splay
	lease   time.Duration   // the watchdog timeout
	splay   time.Duration   // the Locker's
}

// start starts the fleet of sc on a redis-server of its own; it is
// stopped when the test ends.
func (sc scenario) start(t *testing.T) (*fleet.Fleet, fleet.Schedule) {
	t.Helper()
	srv, err := redistest.Start()
	if err != nil {
		t.Fatalf("redis-server: %v", err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	s := sc.sched
	s.StartAt = time.Now().Add(startDelay)
	f, err := fleet.Start(exe, []string{instanceEnv + "=1"}, len(sc.offsets), func(i int) []string {
		o := s
		o.Offset = sc.offsets[i]
		return append([]string{"-addr", srv.Addr, "-mode", sc.mode, "-lease", sc.lease.String(), "-splay", sc.splay.String()}, o.Args()...)
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Stop)
	return f, s
}

// eachTickOnce runs the fleet of sc to its end, checks that it ran each
// tick once (of a Locker fleet: each tick fired within its claim, which
// two thirds of them at least must be), and returns its runs.
func (sc scenario) eachTickOnce(t *testing.T) []fleet.Run {
	t.Helper()
	f, s := sc.start(t)
	rs, got := sc.count(t, f, s)
	if got.Once+got.Late != got.Ticks || got.Overlaps != 0 || got.Late > got.Ticks/3 {
		t.Errorf("%v; want every tick run once", got)
		logRuns(t, rs, s)
	}
	return rs
}

// lockRTT bounds the round trips of a Lock: a tick fired within its
// claim less this runs once.
const lockRTT = 50 * time.Millisecond

// count waits for the fleet's end and returns its runs and their tally.
// A Locker fleet's ticks fired further apart than their claim (processes
// late on a loaded machine, beyond the Locker's rule) are counted Late
// when run twice.
func (sc scenario) count(t *testing.T, f *fleet.Fleet, s fleet.Schedule) ([]fleet.Run, fleet.Tally) {
	t.Helper()
	if err := f.Wait(); err != nil {
		t.Fatal(err)
	}
	var late map[int]bool
	if sc.mode == "locker" {
		late = fleet.Late(f.Events(), s, sc.offsets, sc.splay, lockRTT)
	}
	rs := fleet.Runs(f.Events(), f.Killed())
	got := fleet.Count(rs, s, sc.offsets, 0, late)
	t.Log(got)
	return rs, got
}

// await waits, for at most the fleet's whole schedule, for an event for
// which ok holds.
func await(t *testing.T, f *fleet.Fleet, s fleet.Schedule, what string, ok func(fleet.Event) bool) fleet.Event {
	t.Helper()
	ctx, cancel := context.WithDeadline(context.Background(), s.StartAt.Add(s.For))
	defer cancel()
	e, err := f.Await(ctx, ok)
	if err != nil {
		t.Fatalf("awaiting %s: %v", what, err)
	}
	return e
}

// splayed are three schedulers firing each tick 0, 100 and 200 ms apart;
// the Lockers claim ticks for 500 ms (at most half the interval), which
// leaves them 300 ms for a late process on a loaded machine (count
// excuses the ticks fired later than that).
var splayed = []time.Duration{0, 100 * time.Millisecond, 200 * time.Millisecond}

func TestLockerRunsEachTickOnceAcrossSplayedSchedulers(t *testing.T) {
	t.Parallel()
	sc := scenario{mode: "locker", offsets: splayed, lease: 2 * time.Second, splay: 500 * time.Millisecond,
		sched: fleet.Schedule{Interval: time.Second, Run: 10 * time.Millisecond, For: 30 * time.Second}}
	sc.eachTickOnce(t)
}

// A run of any length holds the job's lock throughout: a job slower than
// its interval, and one longer than the lease the watchdog renews.
func TestLockerLongJobsNeverOverlap(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		run, lease time.Duration
	}{
		{"slower than its interval", 1600 * time.Millisecond, 5 * time.Second},
		{"longer than the lease", 5 * time.Second, 2 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			sc := scenario{mode: "locker", offsets: splayed, lease: tc.lease, splay: 500 * time.Millisecond,
				sched: fleet.Schedule{Interval: time.Second, Run: tc.run, For: 15 * time.Second}}
			f, s := sc.start(t)
			rs, got := sc.count(t, f, s)
			if got.Twice != 0 || got.Missed != 0 || got.Overlaps != 0 || got.Once < 3 {
				t.Errorf("%v; want runs back to back, each tick run once or skipped while a run was on", got)
				logRuns(t, rs, s)
			}
		})
	}
}

func TestLockerInstanceKilledMidRun(t *testing.T) {
	t.Parallel()
	sc := scenario{mode: "locker", offsets: splayed, lease: 1500 * time.Millisecond, splay: 500 * time.Millisecond,
		sched: fleet.Schedule{Interval: time.Second, Run: 600 * time.Millisecond, For: 15 * time.Second}}
	f, s := sc.start(t)
	victim := await(t, f, s, "a run of tick 3", func(e fleet.Event) bool {
		return e.Kind == "start" && fleet.TickOf(s, sc.offsets[e.Instance], e.At) >= 3
	})
	if err := f.Signal(victim.Instance, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	rs, got := sc.count(t, f, s)
	if got.Twice != 0 || got.Overlaps != 0 {
		t.Errorf("%v; want no tick run twice, the killed one included, and no overlap", got)
		logRuns(t, rs, s)
	}
	// The ticks missed are those the killed run's lock covered: its lease
	// after the kill, at most.
	killed := f.Killed()[victim.Instance]
	for k := range got.Ticks {
		at := s.StartAt.Add(time.Duration(k) * s.Interval)
		if !ranTick(rs, s, sc.offsets, k) && (at.Before(killed) || at.After(killed.Add(sc.lease+s.Interval))) {
			t.Errorf("tick %d (%v after the kill) was not run", k, at.Sub(killed))
		}
	}
}

// logRuns logs every run of rs, by its times from the first tick: to
// tell what happened when a test fails.
func logRuns(t *testing.T, rs []fleet.Run, s fleet.Schedule) {
	t.Helper()
	for _, r := range rs {
		t.Logf("instance %d ran from %v to %v", r.Instance, r.Start.Sub(s.StartAt), r.End.Sub(s.StartAt))
	}
}

// ranTick reports whether a run of tick k is among rs.
func ranTick(rs []fleet.Run, s fleet.Schedule, offsets []time.Duration, k int) bool {
	for _, r := range rs {
		if fleet.TickOf(s, offsets[r.Instance], r.Start) == k {
			return true
		}
	}
	return false
}

// aligned are three schedulers firing each tick together.
var aligned = []time.Duration{0, 0, 0}

func TestElectorRunsEachTickOnceOnTheLeader(t *testing.T) {
	t.Parallel()
	sc := scenario{mode: "elector", offsets: aligned, lease: 10 * time.Second, splay: DefaultSplay,
		sched: fleet.Schedule{Interval: time.Second, Run: 10 * time.Millisecond, For: 30 * time.Second}}
	rs := sc.eachTickOnce(t)
	for _, r := range rs {
		if r.Instance != rs[0].Instance {
			t.Errorf("instance %d ran the job at %v, instance %d too: one leader throughout", r.Instance, r.Start, rs[0].Instance)
		}
	}
}

func TestElectorLeaderPausedPastItsLeaseStopsLeadingFirst(t *testing.T) {
	t.Parallel()
	sc := scenario{mode: "elector", offsets: aligned, lease: 2 * time.Second, splay: DefaultSplay,
		sched: fleet.Schedule{Interval: time.Second, Run: 10 * time.Millisecond, For: 15 * time.Second}}
	f, s := sc.start(t)
	// Paused between two runs, so that no run of its lasts through the pause.
	first := await(t, f, s, "the end of a run of tick 2", func(e fleet.Event) bool {
		return e.Kind == "end" && fleet.TickOf(s, 0, e.At) >= 2
	})
	old := first.Instance
	if err := f.Signal(old, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	next := await(t, f, s, "the next leader's first run", func(e fleet.Event) bool {
		return e.Kind == "start" && e.Instance != old
	})
	// Resumed a tick and a half into the next leader's term.
	await(t, f, s, "the next leader's second tick", func(e fleet.Event) bool {
		return e.Kind == "leader" && e.Instance == next.Instance && e.At.After(next.At.Add(s.Interval+s.Interval/2))
	})
	if err := f.Signal(old, syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	rs, got := sc.count(t, f, s)
	var answers int
	for _, e := range f.Events() {
		if e.Instance == old && e.Kind == "leader" && e.At.After(next.At) {
			answers++
			if e.N == 1 {
				t.Errorf("the paused leader's IsLeader answered nil at %v, after the next leader's first run (%v)", e.At, next.At)
			}
		}
	}
	if answers == 0 {
		t.Errorf("the paused leader was asked nothing after it resumed")
	}
	if got.Twice != 0 || got.Overlaps != 0 {
		t.Errorf("%v; want no tick run twice", got)
		logRuns(t, rs, s)
	}
}
