package main

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/relock-go/relock/bench/internal/harness"
	"github.com/relock-go/relock/bench/internal/report"
)

// TestTinyRunEndToEnd runs every scenario briefly on a real redis-server
// (and a real Redis Cluster) and checks that the exclusion checker saw no violation, that no operation
// failed, and that the JSON, the table and the plots are written.
func TestTinyRunEndToEnd(t *testing.T) {
	addr, stop, err := harness.Redis()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = stop() })
	out := t.TempDir()
	cfg, err := parseFlags([]string{
		"-strategies", "relock,relock-fair,spin-const-1ms,redsync-5ms,redislock-1ms",
		"-many-strategies", "relock,relock-fair",
		"-goroutines", "6", "-holds", "200us", "-holds-goroutines", "6", "-readwrite-goroutines", "6", "-clients", "3", "-duration", "400ms", "-warmup", "50ms", "-uncontended", "30ms",
		"-locks", "40", "-waiters", "2", "-idle", "100ms", "-scale-locks", "50,100",
		"-watchdog-locks", "40", "-watchdog-timeout", "600ms", "-watchdog-periods", "1",
		"-cluster-locks", "12", "-cluster-waiters", "2",
		"-scenarios", strings.Join(scenarioNames, ","), "-cluster-scale-locks", "30", "-cluster-scale-masters", "1", "-java-names", "0",
		"-out", out,
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rep, err := cfg.bench(ctx, addr, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if err := cfg.write(rep); err != nil {
		t.Fatal(err)
	}

	if got, want := len(rep.Contention), 5; got != want {
		t.Fatalf("%d contention results, want %d", got, want)
	}
	if got, want := len(rep.Holds), 5; got != want {
		t.Fatalf("%d holds results, want %d", got, want)
	}
	for _, x := range append(rep.Contention, rep.Holds...) {
		if x.Violations != 0 || x.Errors != 0 || x.Acquisitions == 0 {
			t.Errorf("%s: %d violations, %d errors (%s), %d acquisitions; want 0, 0, > 0", x.Strategy, x.Violations, x.Errors, x.FirstError, x.Acquisitions)
		}
	}
	if got, want := len(rep.Scale), 2; got != want {
		t.Fatalf("%d scale results, want %d", got, want)
	}
	for _, x := range rep.Scale {
		if x.Errors != 0 || x.Replacements != 0 {
			t.Errorf("scale %d locks: %d failed calls (%s), %d replaced connections; want 0, 0", x.Locks, x.Errors, x.FirstError, x.Replacements)
		}
	}
	if got, want := len(rep.ReadWrite), 1; got != want {
		t.Fatalf("%d readwrite results, want %d", got, want)
	}
	for _, x := range rep.ReadWrite {
		for _, k := range []harness.ReadWriteKind{x.RWMutex, x.Mutex} {
			if k.Violations != 0 || k.Errors != 0 || k.Reads == 0 || k.Writes == 0 {
				t.Errorf("readwrite %s: %d violations, %d errors (%s), %d reads, %d writes; want 0, 0, > 0, > 0", k.Lock, k.Violations, k.Errors, k.FirstError, k.Reads, k.Writes)
			}
		}
	}
	for _, m := range rep.ManyLocks {
		if m.Errors != 0 {
			t.Errorf("many locks %s: %d errors (%s)", m.Strategy, m.Errors, m.FirstError)
		}
	}
	if wd := rep.Watchdog; wd == nil || wd.Lost != 0 || wd.Expired != 0 {
		t.Errorf("watchdog result %+v: want locks neither lost nor expired", wd)
	}
	if got, want := len(rep.Cluster), 2; got != want {
		t.Fatalf("%d cluster results, want %d (classic, sharded)", got, want)
	}
	for _, x := range rep.Cluster {
		if x.Violations != 0 || x.Errors != 0 || x.Acquisitions == 0 {
			t.Errorf("cluster %s: %d violations, %d errors (%s), %d acquisitions; want 0, 0, > 0", x.PubSub, x.Violations, x.Errors, x.FirstError, x.Acquisitions)
		}
		// Classic PUBLISH crosses the cluster bus to every other master;
		// SPUBLISH stays on the lock's master.
		if broadcast := x.BusPublishes > 0; broadcast != (x.PubSub == "classic") {
			t.Errorf("cluster %s: %d publishes over the cluster bus", x.PubSub, x.BusPublishes)
		}
	}

	if got, want := len(rep.ClusterScale), 1; got != want {
		t.Fatalf("%d cluster-scale results, want %d", got, want)
	}
	for _, x := range rep.ClusterScale {
		if x.Errors != 0 || len(x.Masters) != 1 || x.Masters[0].Locks != x.Locks || x.Acquired != int64(x.Locks*x.Waiters) {
			t.Errorf("cluster-scale: %d errors (%s), masters %+v, %d acquisitions; want 0 errors, one master with the %d locks, %d acquisitions",
				x.Errors, x.FirstError, x.Masters, x.Acquired, x.Locks, x.Locks*x.Waiters)
		}
	}

	b, err := os.ReadFile(filepath.Join(out, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	var back report.Report
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatalf("results.json: %v", err)
	}
	if len(back.Contention) != len(rep.Contention) || len(back.ReadWrite) != len(rep.ReadWrite) || len(back.Targets) == 0 {
		t.Errorf("results.json holds %d contention results, %d readwrite results and %d targets", len(back.Contention), len(back.ReadWrite), len(back.Targets))
	}
	if err := compare("a="+filepath.Join(out, "results.json")+",b="+filepath.Join(out, "results.json"), out); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"results.txt", "contention.png", "contention.svg", "cluster.png", "cluster.svg", "scale.png", "scale-compare.png"} {
		if st, err := os.Stat(filepath.Join(out, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s not written: %v", f, err)
		}
	}
}
