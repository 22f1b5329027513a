package check

import (
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/relock-go/relock/test/proof/history"
)

var (
	fenced   = history.NameSpec{Workload: history.Fenced, LeaseMS: 1000, WaitMS: 2000}
	plain    = history.NameSpec{Workload: history.Plain, LeaseMS: 1000, WaitMS: 2000}
	fair     = history.NameSpec{Workload: history.Fair, LeaseMS: 1000, WaitMS: 2000}
	rw       = history.NameSpec{Workload: history.RW, LeaseMS: 1000, WaitMS: 2000}
	sem1     = history.NameSpec{Workload: history.Semaphore, Permits: 1, LeaseMS: 1000, WaitMS: 2000}
	sem2     = history.NameSpec{Workload: history.Semaphore, Permits: 2, LeaseMS: 1000, WaitMS: 2000}
	pesem    = history.NameSpec{Workload: history.PESemaphore, Permits: 1, LeaseMS: 100, WaitMS: 1000}
	election = history.NameSpec{Workload: history.Election, LeaseMS: 1000, WaitMS: 2000}
)

// onSingle returns spec on lock service "single".
func onSingle(spec history.NameSpec) history.NameSpec {
	spec.Redis = "single"
	return spec
}

// Each history, written by hand, must give exactly the findings listed
// (each "severity check" once, whatever their number): a wrong history its
// violations, a right one none, and what cannot hold measured.
func TestCheckHandWrittenHistories(t *testing.T) {
	for _, tc := range []struct {
		name string
		spec history.NameSpec
		text string
		want []string
	}{
		// Wrong: the checker must fail them.
		{"fenced: a lost write", fenced, `
			go-1 acquire 0 1 ok token=1
			go-1 read 2 3 ok token=1 value=0
			go-1 write 4 5 ok token=1 value=1
			go-1 release 6 7 ok
			go-2 acquire 8 9 ok token=2
			go-2 read 10 11 ok token=2 value=0
			go-2 write 12 13 ok token=2 value=1
			go-2 release 14 15 ok`,
			[]string{"VIOLATION register", "VIOLATION lost-updates"}},
		{"fenced: a token granted twice, and below an earlier one", fenced, `
			go-1 acquire 0 1 ok token=2
			go-1 release 2 3 ok
			go-2 acquire 4 5 ok token=1
			go-2 release 6 7 ok
			go-3 acquire 8 9 ok token=1
			go-3 release 10 11 ok`,
			[]string{"VIOLATION grant-tokens"}},
		{"fenced: the store accepted a write with a lower token", fenced, `
			go-1 acquire 0 1 ok token=1
			go-1 release 2 3 ok
			go-2 acquire 4 5 ok token=2
			go-2 read 6 7 ok token=2 value=0
			go-2 write 8 9 ok token=2 value=1
			go-2 release 10 11 ok
			go-1 write 12 13 ok token=1 value=1
			go-3 acquire 14 15 ok token=3
			go-3 read 16 17 ok token=3 value=1
			go-3 write 18 19 ok token=3 value=2
			go-3 release 20 21 ok`,
			[]string{"VIOLATION store-tokens", "VIOLATION register", "VIOLATION lost-updates"}},
		{"fenced: a read of a value never written", fenced, `
			go-1 acquire 0 1 ok token=1
			go-1 read 2 3 ok token=1 value=7
			go-1 release 4 5 ok`,
			[]string{"VIOLATION register", "VIOLATION lost-updates"}},
		{"semaphore: two inside one permit", sem1, `
			go-1 acquire 0 1 ok
			go-1 enter 2 3 ok count=1
			go-2 acquire 2.5 4 ok
			go-2 enter 5 6 ok count=2
			go-1 leave 7 8 ok
			go-1 release 9 10 ok
			go-2 leave 11 12 ok
			go-2 release 13 14 ok`,
			[]string{"VIOLATION permits"}},
		{"semaphore: a count above N alone", sem2, `
			go-1 acquire 0 1 ok
			go-1 enter 2 3 ok count=3
			go-1 release 9 10 ok`,
			[]string{"VIOLATION permits"}},
		{"election: two leaders for one token", election, `
			go-1 acquire 0 1 ok token=1
			go-1 release 2 3 ok
			go-2 acquire 4 5 ok token=1
			go-2 release 6 7 ok`,
			[]string{"VIOLATION grant-tokens"}},
		{"election: a deposed leader's write accepted", election, `
			go-1 acquire 0 1 ok token=1
			go-1 read 2 3 ok token=1 value=0
			go-1 lost 4 4 ok
			go-2 acquire 5 6 ok token=2
			go-2 read 7 8 ok token=2 value=0
			go-2 write 9 10 ok token=2 value=1
			go-2 release 11 12 ok
			go-1 write 13 14 ok token=1 value=1
			go-1 release 15 16 fail`,
			[]string{"VIOLATION store-tokens", "VIOLATION register", "VIOLATION lost-updates"}},
		{"election: two leaders at once, nothing paused", election, `
			go-1 acquire 0 1 ok token=1
			go-2 acquire 0.5 2 ok token=2
			go-1 release 3 4 ok
			go-2 release 5 6 ok`,
			[]string{"VIOLATION exclusion"}},
		{"plain: two holders at once, nothing paused", plain, `
			go-1 acquire 0 1 ok
			go-2 acquire 0.5 2 ok
			go-1 release 3 4 ok
			go-2 release 5 6 ok`,
			[]string{"VIOLATION exclusion"}},
		{"rw: a writer beside a reader", rw, `
			go-1 acquire 0 1 ok mode=read
			go-2 acquire 0.5 2 ok mode=write
			go-1 release 3 4 ok mode=read
			go-2 release 5 6 ok mode=write`,
			[]string{"VIOLATION exclusion"}},
		{"fair: a later arrival granted first", fair, `
			go-1 acquire 0 1 ok
			go-2 acquire 10 500 ok
			go-3 acquire 300 400 ok
			go-1 release 350 351 ok
			go-3 release 450 451 ok
			go-2 release 600 601 ok`,
			[]string{"VIOLATION fair-order"}},
		{"a waiter never served after the fault healed", plain, `
			nemesis partition 0 100
			go-2 acquire 0 1 ok
			go-1 acquire 50 - none
			go-2 release 2 3 ok
			end=10000`,
			[]string{"VIOLATION liveness"}},
		{"a restart of another lock service explains no token regression", onSingle(fenced), `
			go-1 acquire 0 1 ok token=2
			go-1 release 2 3 ok
			nemesis restart-nopersist 4 5 target=elsewhere
			go-2 acquire 6 7 ok token=1
			go-2 release 8 9 ok`,
			[]string{"VIOLATION grant-tokens"}},
		{"a waiter told past its wait", plain, `
			go-1 acquire 0 1 ok
			go-2 acquire 2 5000 fail
			go-1 release 6000 6001 ok`,
			[]string{"VIOLATION liveness"}},

		// Right: the checker must pass them.
		{"fenced: a holder paused past its lease has its write rejected", fenced, `
			go-1 acquire 0 1 ok token=1
			go-1 read 2 3 ok token=1 value=0
			nemesis pause 4 1500 target=go-1
			go-2 acquire 5 1100 ok token=2
			go-2 read 1101 1102 ok token=2 value=0
			go-2 write 1103 1104 ok token=2 value=1
			go-2 release 1105 1106 ok
			go-1 write 1501 1502 fail token=1 value=1
			go-1 lost 1503 1503 ok
			go-1 release 1504 1505 fail
			go-3 acquire 1506 1507 ok token=3
			go-3 read 1508 1509 ok token=3 value=1
			go-3 write 1510 1511 ok token=3 value=2
			go-3 release 1512 1513 ok
			final read 1600 1601 ok value=2`,
			[]string{"measured exclusion"}},
		{"fenced: killed holders' writes, one taken effect, one not", fenced, `
			go-1 acquire 0 1 ok token=1
			go-1 read 2 3 ok token=1 value=0
			go-1 write 4 - none token=1 value=1
			nemesis kill 5 5 target=go-1
			go-2 acquire 6 1100 ok token=2
			go-2 read 1101 1102 ok token=2 value=1
			go-2 write 1103 1200 info token=2 value=2
			go-2 release 1201 1202 info
			go-3 acquire 1203 2200 ok token=3
			go-3 read 2201 2202 ok token=3 value=1
			go-3 write 2203 2204 ok token=3 value=2
			go-3 release 2205 2206 ok
			final read 2300 2301 ok value=2`,
			nil},
		{"semaphore: two inside two permits", sem2, `
			go-1 acquire 0 1 ok
			go-1 enter 2 3 ok count=1
			java-1 acquire 2.5 4 ok
			java-1 enter 5 6 ok count=2
			go-1 leave 7 8 ok
			go-1 release 9 10 ok
			java-1 leave 11 12 ok
			java-1 release 13 14 ok`,
			nil},
		{"pesemaphore: a permit whose lease ran out is taken again", pesem, `
			go-1 acquire 0 1 ok
			go-1 enter 2 3 ok count=1
			go-2 acquire 50 150 ok
			go-2 enter 151 152 ok count=1
			go-1 lost 160 160 ok
			go-1 release 202 203 fail
			go-2 release 210 211 ok`,
			[]string{"measured permits"}},
		{"pesemaphore: a holder paused before it marked in counts one too many", pesem, `
			go-1 acquire 0 1 ok
			nemesis pause 2 300 target=go-1
			go-1 enter 1.5 301 ok count=2
			go-2 acquire 150 151 ok
			go-2 enter 152 153 ok count=1
			go-2 release 160 161 ok
			go-1 release 302 303 fail`,
			[]string{"measured permits"}},
		{"fair: a waiter overtaken just after a fault is not judged", fair, `
			nemesis reset 0 5
			go-1 acquire 6 7 ok
			go-2 acquire 10 500 ok
			go-3 acquire 300 400 ok
			go-1 release 350 351 ok
			go-3 release 450 451 ok
			go-2 release 600 601 ok`,
			nil},
		{"fair: grants in arrival order", fair, `
			go-1 acquire 0 1 ok
			go-2 acquire 10 300 ok
			java-1 acquire 200 400 ok
			go-1 release 250 251 ok
			go-2 release 350 351 ok
			java-1 release 450 451 ok`,
			nil},
		{"election: a leader paused past its lease, terms growing", election, `
			go-1 acquire 0 1 ok token=1
			nemesis pause 2 1500 target=go-1
			go-2 acquire 3 1100 ok token=2
			go-1 lost 1501 1501 ok
			go-2 release 1600 1601 ok`,
			[]string{"measured exclusion"}},
		{"plain: a Redisson holder under a partition", plain, `
			java-1 acquire 0 1 ok
			nemesis partition 2 1500 target=java-1
			go-2 acquire 3 1100 ok
			go-2 release 1200 1201 ok
			java-1 release 1600 1601 fail`,
			[]string{"measured exclusion"}},
		{"rw: readers together, then a writer", rw, `
			go-1 acquire 0 1 ok mode=read
			java-1 acquire 0.5 2 ok mode=read
			go-1 read 3 4 ok value=0
			java-1 read 3 4 ok value=0
			go-1 release 5 6 ok mode=read
			java-1 release 5 6 ok mode=read
			go-2 acquire 4 7 ok mode=write
			go-2 read 8 9 ok value=0
			go-2 write 10 11 ok value=1
			go-2 release 12 13 ok mode=write`,
			nil},
		{"a killed waiter is not judged", plain, `
			go-1 acquire 0 - none
			nemesis kill 500 500 target=go-1
			end=10000`,
			nil},
		{"a waiter still waiting when the run ended", plain, `
			go-2 acquire 0 1 ok
			go-1 acquire 9500 - none
			go-2 release 2 3 ok
			end=10000`,
			nil},

		// What cannot hold: measured.
		{"a restart without persistence of the name's lock service takes its tokens back", onSingle(fenced), `
			go-1 acquire 0 1 ok token=2
			go-1 release 2 3 ok
			nemesis restart-nopersist 4 5 target=single
			go-2 acquire 6 7 ok token=1
			go-2 release 8 9 ok`,
			[]string{"measured grant-tokens"}},
		{"plain: a paused holder overlaps, and an update is lost", plain, `
			go-1 acquire 0 1 ok
			go-1 read 2 3 ok value=0
			nemesis pause 4 1500 target=go-1
			go-2 acquire 5 1100 ok
			go-2 read 1101 1102 ok value=0
			go-2 write 1103 1104 ok value=1
			go-2 release 1105 1106 ok
			go-1 write 1501 1502 ok value=1
			go-1 release 1504 1505 fail
			final read 1600 1601 ok value=1`,
			[]string{"measured exclusion", "measured lost-updates"}},
		{"fenced: a restart without persistence resets the counter", fenced, `
			go-1 acquire 0 1 ok token=1
			go-1 read 2 3 ok token=1 value=0
			go-1 write 4 5 ok token=1 value=1
			go-1 release 6 7 ok
			nemesis restart-nopersist 10 20
			go-2 acquire 30 31 ok token=1
			go-2 read 32 33 ok token=1 value=0
			go-2 write 34 35 ok token=1 value=1
			go-2 release 36 37 ok`,
			[]string{"measured grant-tokens", "measured register", "measured lost-updates"}},
	} {
		// Cut into chunks of one operation, the register's history must
		// give the same verdicts: the state settled at each cut is sound.
		for _, cfg := range []Config{{}, {ChunkOps: 1}} {
			t.Run(tc.name+"/chunk-"+itoa(cfg.ChunkOps), func(t *testing.T) {
				r, err := Check(parseRun(t, tc.spec, tc.text), cfg)
				if err != nil {
					t.Fatal(err)
				}
				got := findings(r)
				slices.Sort(got)
				want := slices.Clone(tc.want)
				slices.Sort(want)
				if !slices.Equal(got, want) {
					for _, f := range r.Findings {
						t.Log(f)
					}
					t.Fatalf("findings %q, want %q", got, want)
				}
				if r.Failed() != slices.ContainsFunc(want, func(s string) bool { return strings.HasPrefix(s, "VIOLATION") }) {
					t.Fatalf("Failed() = %v with findings %q", r.Failed(), got)
				}
			})
		}
	}
}

// An illegal register chunk's finding names the operation no order fits,
// and it gets porcupine's visualization, beside the history.
func TestIllegalChunkIsVisualized(t *testing.T) {
	run := parseRun(t, fenced, `
		go-1 write 0 1 ok token=1 value=1
		go-2 read 2 3 ok token=2 value=0`)
	r, err := Check(run, Config{})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Findings) == 0 || !strings.Contains(r.Findings[0].Text, "no order fits go-2 #1 read(token 2) -> 0") || r.Findings[0].Since != 2*time.Millisecond {
		t.Fatalf("findings %v: want the read named, and when", r.Findings)
	}
	if len(r.Visualizations) != 1 {
		t.Fatalf("visualizations %q, want one", r.Visualizations)
	}
	b, err := os.ReadFile(r.Visualizations[0])
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(r.Visualizations[0], run.Dir) || !strings.Contains(string(b), "read(token 2) -") || !strings.Contains(string(b), "write(1, token 1) -") {
		t.Fatalf("visualization %s does not show the history's read", r.Visualizations[0])
	}
}

// A chunk that porcupine cannot decide in time is unchecked: the run is not
// proven, and not reported ok.
func TestUndecidedChunkIsUnchecked(t *testing.T) {
	// Twenty-two overlapping writes, then two reads with no write between
	// that disagree: porcupine must try every order of the writes to see
	// that none fits.
	var b strings.Builder
	for i := 1; i <= 22; i++ {
		b.WriteString("go-" + itoa(i) + " write 0 100 ok value=" + itoa(i) + "\n")
	}
	b.WriteString("go-99 read 200 201 ok value=5\ngo-99 read 202 203 ok value=6\n")
	r, err := Check(parseRun(t, plain, b.String()), Config{ChunkTimeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if got := findings(r); !slices.Contains(got, "unchecked register") || r.Failed() || r.Proven() || r.Names[0].Register != "unknown" {
		t.Fatalf("findings %q, register %q, failed %v, proven %v: want it unchecked, neither failed nor proven", got, r.Names[0].Register, r.Failed(), r.Proven())
	}
}
