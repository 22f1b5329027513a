// Command proof runs a proof fleet (package fleet) and writes its run
// directory, for the checker (cmd/check) to judge:
//
//	go run ./cmd/proof -duration 2m -dir runs/now
//
// It prints the seed and each fault as it is injected, and exits 1 when
// the run itself failed (a process that would not start, a fault that
// could not be injected); the guarantees are the checker's to judge.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/relock-go/relock/test/proof/fleet"
)

func main() {
	var c fleet.Config
	flag.StringVar(&c.Dir, "dir", "", "the run directory (required)")
	flag.DurationVar(&c.Duration, "duration", 2*time.Minute, "how long faults are injected (the first round of every kind is finished)")
	flag.Int64Var(&c.Seed, "seed", 0, "the seed of the faults and pauses (0: from the clock)")
	flag.IntVar(&c.Go, "go", 3, "Go processes")
	flag.IntVar(&c.Java, "java", 2, "Java processes")
	flag.BoolVar(&c.Cluster, "cluster", false, "add a Redis Cluster namespace (3 masters, a replica each) and its faults")
	flag.DurationVar(&c.Hold, "hold", 3*time.Millisecond, "the longest pause inside a section")
	faults := flag.String("faults", "", "the fault kinds, comma-separated (default: every kind)")
	workloads := flag.String("workloads", "", "the workloads, comma-separated (default: every one)")
	flag.DurationVar(&c.Lease, "lease", 2*time.Second, "every lock's lease (watchdog timeout)")
	flag.DurationVar(&c.Wait, "wait", 5*time.Second, "how long an acquisition may wait")
	flag.IntVar(&c.Permits, "permits", 2, "each semaphore's permits")
	flag.DurationVar(&c.Think, "think", 10*time.Millisecond, "the longest pause between two iterations of a loop")
	flag.BoolVar(&c.ShortOnly, "short-only", false, "no long holds: every section lasts up to -hold")
	flag.Parse()
	if c.Dir == "" {
		fmt.Fprintln(os.Stderr, "proof: -dir is required")
		os.Exit(2)
	}
	if *faults != "" {
		c.Faults = strings.Split(*faults, ",")
	}
	if *workloads != "" {
		c.Workloads = strings.Split(*workloads, ",")
	}
	c.Log = os.Stdout
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	res, err := fleet.Run(ctx, c)
	if res != nil {
		fmt.Println("proof:", res)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "proof:", err)
		os.Exit(1)
	}
}
