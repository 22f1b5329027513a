package history

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// spec is a manifest of one fenced name and one semaphore.
func spec() Manifest {
	return Manifest{
		Started: time.Unix(100, 0),
		Names: map[string]NameSpec{
			"f": {Workload: Fenced, LeaseMS: 1000, WaitMS: 2000},
			"s": {Workload: Semaphore, Permits: 2, LeaseMS: 1000, WaitMS: 2000},
		},
	}
}

// writeRun writes a manifest and the given files (name → lines) into a new
// directory.
func writeRun(t *testing.T, m Manifest, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	if err := WriteManifest(dir, m); err != nil {
		t.Fatal(err)
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// What the Writer records, Load pairs: invocation and completion, the
// token from the acquire's ok, the value from the write's invoke and the
// read's ok; an operation of a process killed before its completion stays
// open; the nemesis's faults become Faults, one never healed lasting to
// the run's end; operations come back in time order across files.
func TestLoadPairsWhatTheWriterWrote(t *testing.T) {
	dir := writeRun(t, spec(), nil)
	w, err := Create(filepath.Join(dir, "go-1.jsonl"), "go-1", "go")
	if err != nil {
		t.Fatal(err)
	}
	nem, err := Create(filepath.Join(dir, "nemesis.jsonl"), "nemesis", "")
	if err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	acq, err := w.Invoke(Event{Workload: Fenced, Name: "f", Op: "acquire"})
	must(err)
	must(acq.Done(OK, Event{Token: 7}))
	pause, err := nem.Invoke(Event{Op: "fault", Fault: "pause", Target: "go-1"})
	must(err)
	rd, err := w.Invoke(Event{Workload: Fenced, Name: "f", Op: "read", Token: 7})
	must(err)
	must(rd.Done(OK, Event{Value: 41}))
	must(pause.Done(OK, Event{}))
	wr, err := w.Invoke(Event{Workload: Fenced, Name: "f", Op: "write", Token: 7, Value: 42})
	must(err)
	must(wr.Done(Fail, Event{Error: "stale token"}))
	must(w.Instant(Event{Workload: Fenced, Name: "f", Op: "lost"}))
	_, err = nem.Invoke(Event{Op: "fault", Fault: "partition"})
	must(err)
	_, err = w.Invoke(Event{Workload: Semaphore, Name: "s", Op: "acquire", Value: 1})
	must(err)
	must(w.Close())
	must(nem.Close())
	// The process died while writing its next line.
	f, err := os.OpenFile(filepath.Join(dir, "go-1.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
	must(err)
	_, err = f.WriteString(`{"type":"ok","process":"go-1","id":5,`)
	must(err)
	must(f.Close())

	r, err := Load(dir)
	must(err)
	if len(r.Procs) != 1 || r.Procs[0] != (Proc{Name: "go-1", Side: "go"}) {
		t.Fatalf("Procs = %v, want go-1 alone (the nemesis is no process of the workloads)", r.Procs)
	}
	type want struct {
		name  string
		kind  Kind
		out   Outcome
		value int64
		token int64
	}
	wants := []want{
		{"f", OpAcquire, OutcomeOK, 0, 7},
		{"f", OpRead, OutcomeOK, 41, 7},
		{"f", OpWrite, OutcomeFail, 42, 7},
		{"f", OpLost, OutcomeOK, 0, 0},
		{"s", OpAcquire, OutcomeNone, 1, 0},
	}
	if len(r.Ops) != len(wants) {
		t.Fatalf("%d operations, want %d: %+v", len(r.Ops), len(wants), r.Ops)
	}
	for i, w := range wants {
		o := r.Ops[i]
		got := want{r.Names[o.Name], o.Kind, o.Outcome, o.Value, o.Token}
		if got != w {
			t.Errorf("operation %d = %+v, want %+v", i, got, w)
		}
		if i > 0 && o.Call < r.Ops[i-1].Call {
			t.Errorf("operation %d invoked before operation %d", i, i-1)
		}
		if o.Done() && o.Return < o.Call {
			t.Errorf("operation %d returned before it was invoked", i)
		}
	}
	if r.Ops[4].Done() || r.Ops[4].Return != 0 {
		t.Errorf("the killed process's acquire has a completion: %+v", r.Ops[4])
	}
	if len(r.Faults) != 2 {
		t.Fatalf("Faults = %+v, want the pause and the partition", r.Faults)
	}
	p, q := r.Faults[0], r.Faults[1]
	if p.Kind != "pause" || p.Target != "go-1" || !p.Healed || !p.Overlaps(r.Ops[1].Call, r.Ops[1].Return) {
		t.Errorf("pause = %+v, want healed, on go-1, over the read", p)
	}
	if q.Kind != "partition" || q.Healed || q.End != r.End {
		t.Errorf("partition = %+v, want never healed, lasting to the run's end %d", q, r.End)
	}
	if r.Start != time.Unix(100, 0).UnixNano() {
		t.Errorf("Start = %d, want the manifest's", r.Start)
	}
	if spec := r.Spec(r.Ops[4].Name); spec.Permits != 2 {
		t.Errorf("Spec(s) = %+v", spec)
	}
}

// Load refuses, naming what is wrong, what it cannot place.
func TestLoadRefusesBadHistories(t *testing.T) {
	acq := `{"type":"invoke","process":"go-1","side":"go","workload":"fenced","name":"f","id":1,"op":"acquire","t":1}` + "\n"
	ok := `{"type":"ok","process":"go-1","workload":"fenced","name":"f","id":1,"op":"acquire","t":2}` + "\n"
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"no history", nil, "no history file"},
		{"completion without invocation", map[string]string{"a.jsonl": ok}, "never invoked"},
		{"two completions", map[string]string{"a.jsonl": acq + ok + ok}, "completed twice"},
		{"two completions of an id beyond the dense ones", map[string]string{"a.jsonl": strings.ReplaceAll(acq+ok+ok, `"id":1,`, `"id":1099511627776,`)}, "completed twice"},
		{"an invocation again after its completion", map[string]string{"a.jsonl": acq + ok + acq}, "invoked twice"},
		{"two invocations", map[string]string{"a.jsonl": acq + acq}, "invoked twice"},
		{"a completion before its invocation", map[string]string{"a.jsonl": acq + strings.Replace(ok, `"t":2`, `"t":0`, 1)}, "before it was invoked"},
		{"unknown op", map[string]string{"a.jsonl": strings.Replace(acq, "acquire", "grab", 1)}, `unknown op "grab"`},
		{"unknown type", map[string]string{"a.jsonl": acq + strings.Replace(ok, `"ok"`, `"done"`, 1)}, `unknown type "done"`},
		{"unknown mode", map[string]string{"a.jsonl": strings.Replace(acq, `"op"`, `"mode":"shared","op"`, 1)}, `unknown mode "shared"`},
		{"name not in the manifest", map[string]string{"a.jsonl": strings.Replace(acq, `"f"`, `"g"`, 1)}, `name "g" is not in the manifest`},
		{"workload other than the manifest's", map[string]string{"a.jsonl": strings.Replace(acq, "fenced", "plain", 1)}, "a plain in the history, a fenced in the manifest"},
		{"process in two files", map[string]string{"a.jsonl": acq, "b.jsonl": acq}, "two files"},
		{"a line in the middle that is no event", map[string]string{"a.jsonl": acq + "{oops\n" + ok}, "line 2 is not an event"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load(writeRun(t, spec(), tc.files))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Load: %v, want an error with %q", err, tc.want)
			}
		})
	}
}

// A manifest that cannot describe a run is refused when written and when
// read; the default lists of faults that lose writes apply when the
// manifest has none.
func TestManifestValidation(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*Manifest)
		want string
	}{
		{"no names", func(m *Manifest) { m.Names = nil }, "names no object"},
		{"unknown workload", func(m *Manifest) { m.Names["f"] = NameSpec{Workload: "queue", LeaseMS: 1} }, `unknown workload "queue"`},
		{"semaphore without permits", func(m *Manifest) { m.Names["s"] = NameSpec{Workload: Semaphore, LeaseMS: 1} }, "permits > 0"},
		{"latch without a count", func(m *Manifest) { m.Names["l"] = NameSpec{Workload: Latch, LeaseMS: 1} }, "permits > 0"},
		{"rate limiter without an interval", func(m *Manifest) { m.Names["r"] = NameSpec{Workload: Rate, Permits: 1, LeaseMS: 1} }, "interval_ms > 0"},
		{"no lease", func(m *Manifest) { m.Names["f"] = NameSpec{Workload: Fenced} }, "lease_ms must be positive"},
		{"wait below -1", func(m *Manifest) { m.Names["f"] = NameSpec{Workload: Fenced, LeaseMS: 1, WaitMS: -2} }, "wait_ms"},
		{"negative fair bound", func(m *Manifest) { m.Names["f"] = NameSpec{Workload: Fair, LeaseMS: 1, FairBound: -1} }, "fair_bound"},
		{"ended before started", func(m *Manifest) { m.Ended = m.Started.Add(-time.Second) }, "before it started"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := spec()
			tc.edit(&m)
			if err := WriteManifest(t.TempDir(), m); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("WriteManifest: %v, want an error with %q", err, tc.want)
			}
		})
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, ManifestFile), []byte(`{"names":{"f":{"workload":"fenced","lease_ms":1,"leese_ms":2}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadManifest(dir); err == nil || !strings.Contains(err.Error(), "leese_ms") {
		t.Fatalf("ReadManifest with a misspelt field: %v, want it named", err)
	}
	m := spec()
	if !m.LosesLocksUnder("restart-nopersist") || m.LosesLocksUnder("failover-ack") || !m.LosesDataUnder("failover-ack") || m.LosesDataUnder("restart-always") {
		t.Error("the default lists of faults that lose writes are not the documented ones")
	}
	// An empty list, written and read back, is no fault at all; an
	// absent one the default.
	m.LosesData = []string{}
	if err := WriteManifest(dir, m); err != nil {
		t.Fatal(err)
	}
	back, err := ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if back.LosesDataUnder("restart-nopersist") || !back.LosesLocksUnder("restart-nopersist") {
		t.Errorf("read back, loses_data %v and loses_locks %v: want none and the default", back.LosesData, back.LosesLocks)
	}
}

// A failover the nemesis could not confirm (info) is not known to have
// healed: it lasts until the next fault on its target begins.
func TestUnconfirmedFaultLastsUntilTheNextOnItsTarget(t *testing.T) {
	dir := writeRun(t, spec(), nil)
	nem, err := Create(filepath.Join(dir, "nemesis.jsonl"), "nemesis", "")
	if err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	first, err := nem.Invoke(Event{Op: "fault", Fault: "failover", Target: "noack"})
	must(err)
	must(first.Done(Info, Event{Error: "new master: context deadline exceeded"}))
	other, err := nem.Invoke(Event{Op: "fault", Fault: "reset", Target: "go-1"})
	must(err)
	must(other.Done(OK, Event{}))
	next, err := nem.Invoke(Event{Op: "fault", Fault: "failover", Target: "noack"})
	must(err)
	must(next.Done(OK, Event{}))
	must(nem.Close())
	r, err := Load(dir)
	must(err)
	if len(r.Faults) != 3 {
		t.Fatalf("Faults = %+v, want three", r.Faults)
	}
	f, n := r.Faults[0], r.Faults[2]
	if f.Healed || f.End != n.Start {
		t.Errorf("unconfirmed failover = %+v, want not healed, lasting until the next failover's start %d", f, n.Start)
	}
	if !n.Healed {
		t.Errorf("confirmed failover = %+v, want healed", n)
	}
}
