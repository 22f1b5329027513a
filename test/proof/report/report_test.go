package report

import (
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/relock-go/relock/test/proof/check"
	"github.com/relock-go/relock/test/proof/history"
	"github.com/relock-go/relock/test/testenv"
)

// TestMain fails the package if a goroutine of the module outlives its tests.
func TestMain(m *testing.M) { os.Exit(testenv.Main(m.Run)) }

// sample is a run of two seconds with a pause and a kill, and its result.
func sample() (*history.Run, *check.Result) {
	const s = int64(1e9)
	run := &history.Run{Start: 100 * s, End: 102 * s, LastT: 102 * s,
		Procs:  []history.Proc{{Name: "go-1", Side: "go"}, {Name: "java-1", Side: "java"}},
		Names:  []string{"f"},
		Faults: []history.Fault{{Kind: "pause", Start: 100*s + s/2, End: 101 * s}, {Kind: "kill", Start: 101*s + s/2, End: 101*s + s/2}, {Kind: "pause", Start: 101 * s, End: 101*s + s/4}}}
	for i := range 40 {
		t := 100*s + int64(i)*s/20
		run.Ops = append(run.Ops, history.Operation{Call: t, Return: t + 1000, Proc: int32(i % 2), Kind: history.OpAcquire, Outcome: history.OutcomeOK})
	}
	res := &check.Result{
		Names: []check.NameResult{{Name: "f", Workload: history.Fenced, Acquisitions: 1234567, Register: "ok", LostUpdates: 0, Counts: check.Counts{Violations: 1, Measured: 3}}},
		Cells: []check.Cell{
			{Fault: "pause", Workload: history.Fenced, Acquisitions: 1000, Counts: check.Counts{Measured: 3}},
			{Fault: check.NoFault, Workload: history.Fenced, Acquisitions: 1233567, Counts: check.Counts{Violations: 1}},
			{Fault: "pause", Workload: history.Semaphore, Acquisitions: 10},
		},
		Findings: []check.Finding{{Severity: check.Violation, Check: check.CheckRegister, At: 100*s + s/4}, {Severity: check.Measured, Check: check.CheckExclusion, At: 100*s + 3*s/4}},
		Causes: []check.CauseCount{{Cause: "", Side: "", Check: check.CheckRegister, Findings: 1},
			{Cause: "pause", Side: "go", Check: check.CheckExclusion, Findings: 2}, {Cause: "pause", Side: "go", Check: check.CheckLostUpdates, Findings: 1},
			{Cause: "failover", Side: "java", Check: check.CheckGrantTokens, Findings: 1}},
		Counts: check.Counts{Violations: 1, Measured: 3},
	}
	return run, res
}

// The table of causes has a row per cause, the violations first, then by
// findings; a column per side and the harness; in each cell the findings
// and how many each check made, most first.
func TestCauses(t *testing.T) {
	_, res := sample()
	var b strings.Builder
	if err := Causes(&b, res); err != nil {
		t.Fatal(err)
	}
	want := `| cause | Go (relock) | Java (Redisson) | neither (harness, leftovers) |
|---|---|---|---|
| **no cause: violations** | | | 1 (register 1) |
| pause | 3 (exclusion 2, lost-updates 1) | | |
| failover | | 1 (grant-tokens 1) | |
`
	if b.String() != want {
		t.Fatalf("table:\n%s\nwant:\n%s", b.String(), want)
	}
}

// The table has a row per fault kind (no fault first, then in the order of
// the kinds' list, with how many were injected, a kill without a cell
// included) and a column per workload, in the workloads' order.
func TestTable(t *testing.T) {
	run, res := sample()
	var b strings.Builder
	if err := Table(&b, run, res); err != nil {
		t.Fatal(err)
	}
	want := `| fault (injected) | fenced | semaphore |
|---|---:|---:|
| no fault | 1,233,567, **1 violation** | |
| pause (2) | 1,000, 3 measured | 10 |
| kill (1) | | |
`
	if b.String() != want {
		t.Fatalf("table:\n%s\nwant:\n%s", b.String(), want)
	}
}

// Write writes a report that gives the verdict and the table, and a
// timeline that is a PNG.
func TestWrite(t *testing.T) {
	run, res := sample()
	dir := t.TempDir()
	files, err := Write(dir, run, res)
	if err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(dir, MarkdownFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"**VIOLATED**: 1 violation", "| pause (2) | 1,000, 3 measured | 10 |", "| f | fenced | 1,234,567 | ok |"} {
		if !strings.Contains(string(md), s) {
			t.Errorf("report lacks %q:\n%s", s, md)
		}
	}
	f, err := os.Open(filepath.Join(dir, TimelineFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() < 1000 || b.Dy() < 400 || len(files) != 2 {
		t.Fatalf("timeline %v, files %v", b, files)
	}
}

func TestVerdictAndThousands(t *testing.T) {
	for _, tc := range []struct {
		c    check.Counts
		want string
	}{{check.Counts{}, "proven"}, {check.Counts{Measured: 5}, "proven"}, {check.Counts{Unchecked: 1}, "not proven"}, {check.Counts{Violations: 1, Unchecked: 1}, "VIOLATED"}} {
		if got := Verdict(&check.Result{Counts: tc.c}); got != tc.want {
			t.Errorf("Verdict(%+v) = %q, want %q", tc.c, got, tc.want)
		}
	}
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567", -4500: "-4,500"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
}
