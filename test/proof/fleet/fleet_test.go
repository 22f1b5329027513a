package fleet

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/relock-go/relock/test/proof/history"
	"github.com/relock-go/relock/test/proof/nemesis"
	"github.com/relock-go/relock/test/proof/store"
	"github.com/relock-go/relock/test/testenv"
)

func TestMain(m *testing.M) { os.Exit(testenv.Main(m.Run)) }

// A tiny fleet, one Go and one Java process on the single server, through
// one partition: both write histories that parse, pair and match the
// manifest, and the nemesis's one fault is a healed span.
func TestTinyFleetThroughOneFault(t *testing.T) {
	root, err := ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := JarPath(root, ""); err != nil {
		testenv.Unavailable(t, "the proof fleet's Java worker needs Java 17 (javac too) and the Redisson peer: "+err.Error(),
			"make proof (RELOCK_REDISSON_PEER=/path/to/redisson-peer.jar)")
	}
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	res, err := Run(ctx, Config{
		Dir: dir, Go: 1, Java: 1, Seed: 1,
		Namespaces: []string{store.Single},
		Faults:     []string{nemesis.Partition},
		Duration:   time.Nanosecond, // the first round: the one partition
		Lease:      time.Second,
		FairWait:   time.Second,
		Warmup:     500 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Faults[nemesis.Partition] != 1 || len(res.Faults) != 1 {
		t.Fatalf("faults %v, want one partition", res.Faults)
	}
	run, err := history.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Faults) != 1 {
		t.Fatalf("the history holds %d faults, want 1", len(run.Faults))
	}
	if f := run.Faults[0]; f.Kind != nemesis.Partition || !f.Healed || f.End <= f.Start {
		t.Errorf("fault %+v: want a healed partition with a span", f)
	}
	acquired := map[string]int{}
	finals := 0
	for _, o := range run.Ops {
		p := run.Procs[o.Proc]
		switch {
		case o.Kind == history.OpAcquire && o.Outcome == history.OutcomeOK:
			acquired[p.Side]++
		case p.Name == "final" && o.Kind == history.OpRead && o.Outcome == history.OutcomeOK:
			finals++
		}
	}
	if acquired["go"] == 0 || acquired["java"] == 0 {
		t.Errorf("acquisitions by side %v: want both sides to have acquired", acquired)
	}
	registers := 0
	for _, spec := range run.Manifest.Names {
		switch spec.Workload {
		case history.Fenced, history.Plain, history.RW, history.Election:
			registers++
		}
	}
	// Fenced, plain, rw and election: one epoch each, and each process's
	// warm-up objects.
	if registers != 4*3 || finals != registers {
		t.Errorf("%d final reads of %d registers, want 12 of 12", finals, registers)
	}
	b, err := os.ReadFile(filepath.Join(dir, history.LeftoversFile))
	if err != nil {
		t.Fatal(err)
	}
	var left []history.Leftover
	if err := json.Unmarshal(b, &left); err != nil {
		t.Fatal(err)
	}
	counters := 0
	for _, l := range left {
		if l.Family == "token counter" {
			counters++
		}
	}
	// The fenced lock's and the election's, of each of the three objects.
	if counters != 2*3 {
		t.Errorf("%d token counters left, want 6: %+v", counters, left)
	}
	t.Logf("%s; %d operations, acquisitions by side %v", res, len(run.Ops), acquired)
}
