package main

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/relock-go/relock/test/proof/history"
	"github.com/relock-go/relock/test/testenv"
)

// TestMain fails the package if a goroutine of the module outlives its tests.
func TestMain(m *testing.M) { os.Exit(testenv.Main(m.Run)) }

// writeRun writes a run of 300 fenced sections taken in turn by two Go
// processes and a Java one, with a partition in the middle; corrupt makes
// one read return a value never written.
func writeRun(t *testing.T, corrupt bool) string {
	t.Helper()
	dir := t.TempDir()
	t0 := time.Unix(1_700_000_000, 0)
	m := history.Manifest{Started: t0, Ended: t0.Add(4 * time.Second), Seed: 7, LosesData: []string{},
		Names: map[string]history.NameSpec{"fenced-1": {Workload: history.Fenced, LeaseMS: 500, WaitMS: 1000}}}
	if err := history.WriteManifest(dir, m); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, history.LeftoversFile), []byte("null\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	files := map[string]*json.Encoder{}
	ids := map[string]int64{}
	write := func(proc string, e history.Event) {
		enc := files[proc]
		if enc == nil {
			f, err := os.Create(filepath.Join(dir, proc+".jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { f.Close() })
			enc = json.NewEncoder(f)
			files[proc] = enc
		}
		e.Process = proc
		if err := enc.Encode(e); err != nil {
			t.Fatal(err)
		}
	}
	at := func(ms int) int64 { return t0.Add(time.Duration(ms) * time.Millisecond).UnixNano() }
	op := func(proc, kind string, call, ret int, typ string, inv, done history.Event) {
		ids[proc]++
		side := "go"
		if strings.HasPrefix(proc, "java") {
			side = "java"
		}
		inv.Type, inv.Side, inv.Workload, inv.Name, inv.Op, inv.ID, inv.T = history.Invoke, side, history.Fenced, "fenced-1", kind, ids[proc], at(call)
		write(proc, inv)
		done.Type, done.Side, done.Workload, done.Name, done.Op, done.ID, done.T = typ, side, history.Fenced, "fenced-1", kind, ids[proc], at(ret)
		write(proc, done)
	}
	write("nemesis", history.Event{Type: history.Invoke, Op: "fault", Fault: "partition", Target: "go-2", ID: 1, T: at(1500)})
	write("nemesis", history.Event{Type: history.OK, Op: "fault", ID: 1, T: at(1800)})
	procs := []string{"go-1", "go-2", "java-1"}
	for i := range 300 {
		p, base, tok := procs[i%3], 10*i, int64(i+1)
		value := int64(i)
		if corrupt && i == 150 {
			value = 1000
		}
		op(p, "acquire", base, base+1, history.OK, history.Event{}, history.Event{Token: tok})
		op(p, "read", base+2, base+3, history.OK, history.Event{Token: tok}, history.Event{Value: value})
		op(p, "write", base+4, base+5, history.OK, history.Event{Token: tok, Value: int64(i + 1)}, history.Event{})
		op(p, "release", base+6, base+7, history.OK, history.Event{}, history.Event{})
	}
	op("final", "read", 3100, 3101, history.OK, history.Event{}, history.Event{Value: 300})
	return dir
}

// The command checks a right run (exit 0) and a wrong one (exit 1), and
// writes the report, the timeline and, for the wrong one, porcupine's
// visualization beside the history.
func TestCheckCommand(t *testing.T) {
	for _, tc := range []struct {
		name    string
		corrupt bool
		exit    int
		verdict string
	}{
		{"right", false, exitProven, "proven"},
		{"wrong", true, exitViolated, "VIOLATED"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeRun(t, tc.corrupt)
			var out, errs strings.Builder
			if code := run([]string{dir}, &out, &errs); code != tc.exit {
				t.Fatalf("exit %d, want %d\n%s%s", code, tc.exit, out.String(), errs.String())
			}
			if !strings.HasPrefix(out.String(), tc.verdict+":") || !strings.Contains(out.String(), "| partition (1) |") {
				t.Fatalf("output does not start with %q or lacks the partition's row:\n%s", tc.verdict, out.String())
			}
			for _, f := range []string{"report.md", "timeline.png"} {
				if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
					t.Fatalf("%s: %v", f, err)
				}
			}
			html, _ := filepath.Glob(filepath.Join(dir, "*.html"))
			if (len(html) > 0) != tc.corrupt {
				t.Fatalf("visualizations %v for a run that is %s", html, tc.name)
			}
		})
	}
}

// A directory that is no run is an error (exit 2), said on stderr.
func TestCheckCommandRefusesWhatIsNoRun(t *testing.T) {
	var errs strings.Builder
	if code := run([]string{t.TempDir()}, io.Discard, &errs); code != exitError || !strings.Contains(errs.String(), "manifest.json") {
		t.Fatalf("exit %d, stderr %q: want 2 and the manifest named", code, errs.String())
	}
	if code := run(nil, io.Discard, io.Discard); code != exitError {
		t.Fatalf("no directory: exit %d, want 2", code)
	}
}
