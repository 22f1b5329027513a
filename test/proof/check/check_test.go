package check

import (
	"os"
	"path/filepath"
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

// onAck returns spec on lock service "ack".
func onAck(spec history.NameSpec) history.NameSpec {
	spec.Redis = "ack"
	return spec
}

// withAck returns spec on lock service "ack", whose acquisitions wait a
// second for a replica.
func withAck(spec history.NameSpec) history.NameSpec {
	spec.AckMS = 1000
	return onAck(spec)
}

// A run without a directory gets no visualization.
func TestNoVisualizationWithoutDirectory(t *testing.T) {
	run := parseRun(t, fenced, `
		go-1 write 0 1 ok token=1 value=1
		go-2 read 2 3 ok token=2 value=0`)
	run.Dir = ""
	r, err := Check(run, Config{})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Failed() || len(r.Visualizations) != 0 {
		t.Fatalf("failed %v, visualizations %q: want a violation, and none", r.Failed(), r.Visualizations)
	}
	if files, _ := filepath.Glob("*.html"); len(files) != 0 {
		t.Fatalf("visualizations written in the working directory: %q", files)
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

// A Config with a negative value, or a run whose manifest lacks one of its
// names, is refused.
func TestCheckRefusesWhatItCannotUse(t *testing.T) {
	run := parseRun(t, fenced, "go-1 acquire 0 1 ok token=1")
	if _, err := Check(run, Config{ChunkOps: -1}); err == nil || !strings.Contains(err.Error(), "ChunkOps is negative") {
		t.Errorf("ChunkOps -1: %v", err)
	}
	if _, err := Check(run, Config{Slack: -time.Second}); err == nil || !strings.Contains(err.Error(), "Slack is negative") {
		t.Errorf("Slack -1s: %v", err)
	}
	delete(run.Manifest.Names, "n")
	if _, err := Check(run, Config{}); err == nil || !strings.Contains(err.Error(), `"n" is not in the run's manifest`) {
		t.Errorf("a name not in the manifest: %v", err)
	}
}
