package check

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/relock-go/relock/test/proof/history"
)

// The tests write histories by hand, one operation a line, times in
// milliseconds from the run's start:
//
//	go-1 acquire 0 5 ok token=3        process op call return outcome fields
//	java-2 write 6 - none value=4      "-": no completion (outcome none)
//	go-1 lost 9 9 ok
//	nemesis pause 10 40 target=go-1    a fault: kind, start, end
//
// Fields: token, value, count, mode. A process named java-* is on the
// Java side. The run has one name, "n", of the spec given (and the
// manifest another, on lock service "elsewhere"), and ends at the last
// time written (or end=, on a line of its own). A line "store-apart"
// keeps the registers on a server no fault touches (Manifest.LosesData
// empty), as the proof does. The run lists no leftovers unless a line
// "leftover service key type ttl_ms family" (family's spaces written _)
// gives one; "no-leftovers": the run did not list them. "busy proc from
// to": the process writes a line every 5 ms then (reads of the manifest's
// other name), as a running process of the proof does.

const start = int64(1_000_000_000_000) // the run's start, ns

func ms(s string, t *testing.T) int64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("bad time %q", s)
	}
	return start + int64(v*float64(time.Millisecond))
}

// parseRun builds a run of one name of spec from text.
func parseRun(t *testing.T, spec history.NameSpec, text string) *history.Run {
	t.Helper()
	run := &history.Run{Dir: t.TempDir(), Names: []string{"n"}, Start: start, HasLeftovers: true,
		Manifest: history.Manifest{Names: map[string]history.NameSpec{"n": spec, "other": {Workload: history.Plain, LeaseMS: 1, Redis: "elsewhere"}}}}
	procs := map[string]int32{}
	ids := map[string]int64{}
	var busy []history.Operation
	var busyProc []string
	end := int64(0)
	for _, line := range strings.Split(text, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		if strings.HasPrefix(f[0], "end=") {
			run.End = ms(strings.TrimPrefix(f[0], "end="), t)
			continue
		}
		if f[0] == "store-apart" {
			run.Manifest.LosesData = []string{}
			continue
		}
		if f[0] == "busy" && len(f) == 4 {
			// The process writes a line every 5 ms (a read of "other"):
			// it is running, not silent.
			run.Names = []string{"n", "other"}
			for at := ms(f[2], t); at <= ms(f[3], t); at += 5 * int64(time.Millisecond) {
				busy = append(busy, history.Operation{Call: at, Return: at + 1, Kind: history.OpRead, Outcome: history.OutcomeOK, Name: 1, ID: -1})
				busyProc = append(busyProc, f[1])
			}
			continue
		}
		if f[0] == "no-leftovers" {
			run.HasLeftovers = false
			continue
		}
		if f[0] == "leftover" && len(f) == 6 {
			ttl, err := strconv.ParseInt(f[4], 10, 64)
			if err != nil {
				t.Fatalf("line %q: %v", line, err)
			}
			run.Leftovers = append(run.Leftovers, history.Leftover{Service: f[1], Key: f[2], Type: f[3], TTLMS: ttl,
				Family: strings.ReplaceAll(f[5], "_", " ")})
			continue
		}
		if len(f) < 4 {
			t.Fatalf("short line %q", line)
		}
		if f[0] == "nemesis" {
			fl := history.Fault{Kind: f[1], Start: ms(f[2], t), End: ms(f[3], t), Healed: true}
			for _, kv := range f[4:] {
				if v, ok := strings.CutPrefix(kv, "target="); ok {
					fl.Target = v
				}
			}
			run.Faults = append(run.Faults, fl)
			end = max(end, fl.End)
			continue
		}
		if len(f) < 5 {
			t.Fatalf("short line %q", line)
		}
		p, ok := procs[f[0]]
		if !ok {
			p = int32(len(run.Procs))
			procs[f[0]] = p
			side := "go"
			if strings.HasPrefix(f[0], "java") {
				side = "java"
			}
			run.Procs = append(run.Procs, history.Proc{Name: f[0], Side: side})
		}
		ids[f[0]]++
		o := history.Operation{Proc: p, ID: ids[f[0]], Call: ms(f[2], t)}
		for k := history.OpAcquire; k <= history.OpQueued; k++ {
			if k.String() == f[1] {
				o.Kind = k
			}
		}
		if o.Kind == 0 {
			t.Fatalf("unknown op in %q", line)
		}
		if f[3] != "-" {
			o.Return = ms(f[3], t)
		}
		o.Outcome = map[string]history.Outcome{"ok": history.OutcomeOK, "fail": history.OutcomeFail, "info": history.OutcomeInfo, "none": history.OutcomeNone}[f[4]]
		if (o.Outcome == history.OutcomeNone) != (o.Return == 0) {
			t.Fatalf("line %q: a return time goes with an outcome", line)
		}
		for _, kv := range f[5:] {
			k, v, _ := strings.Cut(kv, "=")
			if k == "mode" {
				o.Mode = map[string]history.Mode{"read": history.ModeRead, "write": history.ModeWrite}[v]
				continue
			}
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				t.Fatalf("line %q: %v", line, err)
			}
			switch k {
			case "token":
				o.Token = n
			case "value":
				o.Value = n
			case "count":
				o.Count = n
			default:
				t.Fatalf("line %q: unknown field %q", line, k)
			}
		}
		run.Ops = append(run.Ops, o)
		end = max(end, o.Call, o.Return)
	}
	for i, o := range busy {
		p, ok := procs[busyProc[i]]
		if !ok {
			t.Fatalf("busy %s: no such process", busyProc[i])
		}
		ids[busyProc[i]]++
		o.Proc, o.ID = p, ids[busyProc[i]]
		run.Ops = append(run.Ops, o)
	}
	slices.SortStableFunc(run.Ops, func(a, b history.Operation) int { return cmp.Compare(a.Call, b.Call) })
	slices.SortStableFunc(run.Faults, func(a, b history.Fault) int { return cmp.Compare(a.Start, b.Start) })
	run.LastT = end
	if run.End == 0 {
		run.End = end
	}
	return run
}

// findings returns the result's findings as "severity check" strings, each
// once, in order.
func findings(r *Result) []string {
	var out []string
	seen := map[string]bool{}
	for _, f := range r.Findings {
		s := f.Severity.String() + " " + f.Check
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// checkCase is a history written by hand and the findings it must give:
// each "severity check" once, whatever their number.
type checkCase struct {
	name string
	spec history.NameSpec
	text string
	want []string
}

// runCases checks each case's history, whole and cut into chunks of one
// operation: the register's verdicts must not depend on the cuts (the
// state settled at each is sound).
func runCases(t *testing.T, cases []checkCase) {
	t.Helper()
	for _, tc := range cases {
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
