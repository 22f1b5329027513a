package check

import (
	"slices"
	"testing"
)

// The told check, on histories where a relock holder is, or is not, told
// of its loss before another holder gets in. A late one must fail the run
// with a violation of told or exclusion (exclusion judges the same two
// holders first; told reports what exclusion let pass), and a right one
// must give no violation and no told finding.
func TestToldBeforeAnyoneElseGetsIn(t *testing.T) {
	late := []checkCase{
		{"a relock holder untouched by any fault, and a Java waiter partitioned after it got the lock", plain, `
			go-1 acquire 0 1 ok
			java-1 acquire 10 1500 ok
			nemesis partition 20 1400 target=java-1
			go-1 release 2000 2001 ok
			java-1 release 2002 2003 ok`, nil},
		{"everyone partitioned, a Java waiter in before the relock holder is told", plain, `
			go-1 acquire 0 1 ok
			java-1 acquire 50 2600 ok
			nemesis partition 100 2500
			go-1 lost 2700 2700 ok
			go-1 release 2800 2801 fail
			java-1 release 2900 2901 ok`, nil},
		{"a relock reader never told, and a Java writer with 5 ms of latency while it waited", rw, `
			go-1 acquire 0 1 ok mode=read
			java-1 acquire 10 1300 ok mode=write
			nemesis latency 20 1200 target=java-1
			go-1 release 1500 1501 ok mode=read
			java-1 release 1502 1503 ok mode=write`, nil},
		{"a relock successor partitioned while it waited", fenced, `
			go-1 acquire 0 1 ok token=1
			go-2 acquire 10 1500 ok token=2
			nemesis partition 20 1400 target=go-2
			go-1 release 2000 2001 ok
			go-2 release 2002 2003 ok`, nil},
	}
	right := []checkCase{
		{"the relock holder partitioned, told before the Java waiter got in", plain, `
			go-1 acquire 0 1 ok
			nemesis partition 100 2500 target=go-1
			java-1 acquire 200 1200 ok
			go-1 lost 1100 1100 ok
			go-1 release 1150 2600 info
			java-1 release 1300 1301 ok`, nil},
		{"the relock holder paused past its lease", plain, `
			go-1 acquire 0 1 ok
			nemesis pause 100 1600 target=go-1
			java-1 acquire 200 1200 ok
			java-1 release 1300 1301 ok
			go-1 release 1650 1651 fail`, nil},
		{"the relock holder's lock service restarted without persistence", onSingle(election), `
			go-1 acquire 0 1 ok token=1
			nemesis restart-nopersist 100 150 target=single
			java-1 acquire 200 300 ok token=1
			go-1 lost 400 400 ok
			go-1 release 410 411 fail
			java-1 release 500 501 ok`, nil},
		{"a Java waiter that may have been granted first, its reply delayed by a partition", plain, `
			java-1 acquire 0 1500 ok
			nemesis partition 1 1400 target=java-1
			go-1 acquire 5 1100 ok
			go-1 release 1600 1601 ok
			java-1 release 1602 1603 ok`, nil},
	}
	judge := func(t *testing.T, tc checkCase) *Result {
		t.Helper()
		r, err := Check(parseRun(t, tc.spec, tc.text), Config{})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range r.Findings {
			t.Log(f)
		}
		return r
	}
	for _, tc := range late {
		t.Run("late/"+tc.name, func(t *testing.T) {
			r := judge(t, tc)
			if !slices.ContainsFunc(r.Findings, func(f Finding) bool {
				return f.Severity == Violation && (f.Check == CheckTold || f.Check == CheckExclusion)
			}) {
				t.Fatalf("no violation of %s or %s: findings %q", CheckTold, CheckExclusion, findings(r))
			}
		})
	}
	for _, tc := range right {
		t.Run("right/"+tc.name, func(t *testing.T) {
			r := judge(t, tc)
			if r.Failed() || slices.ContainsFunc(r.Findings, func(f Finding) bool { return f.Check == CheckTold }) {
				t.Fatalf("findings %q, want no violation and nothing of %s", findings(r), CheckTold)
			}
		})
	}
}
