// Command soak runs many relock Clients against a real redis-server for a
// bounded time while faults switch on and off (latency, lost replies,
// partitions, outages, connection resets, refused connections, script
// flushes), and checks every critical section with the mutual-exclusion
// checker of package chaos. It prints acquisitions, lost-lock signals,
// faults and violations, and exits with status 1 on any violation.
//
//	go run ./test/cmd/soak -duration 2m -clients 8
//
// Without -redis it starts its own redis-server on a free loopback port
// (redis-server must be on the PATH; `make soak` installs it when missing).
package main

import (
	"context"
	"flag"
	"fmt"
	"maps"
	"os"
	"os/signal"
	"slices"
	"strings"
	"time"

	"github.com/relock-go/relock/test/chaos"
	"github.com/relock-go/relock/test/redistest"
)

func main() {
	cfg := chaos.Config{Faults: true, ProgressEvery: 10 * time.Second}
	addr := flag.String("redis", "", "redis-server host:port to use (default: start one)")
	flag.DurationVar(&cfg.Duration, "duration", 150*time.Second, "how long to run")
	flag.IntVar(&cfg.Clients, "clients", 8, "rlock Clients, each behind its own fault proxy")
	flag.IntVar(&cfg.WorkersPerClient, "workers", 3, "lock owners per Client")
	flag.IntVar(&cfg.Names, "names", 4, "lock names the owners share out")
	flag.DurationVar(&cfg.Lease, "lease", 600*time.Millisecond, "watchdog timeout; faults scale with it")
	flag.IntVar(&cfg.LongEvery, "long-every", 100, "about one critical section in this many spans several renewals (negative: none)")
	flag.Uint64Var(&cfg.Seed, "seed", 0, "fault schedule seed (0: random)")
	noFaults := flag.Bool("no-faults", false, "run without faults")
	flag.Parse()
	cfg.Faults = !*noFaults
	os.Exit(run(*addr, cfg))
}

func run(addr string, cfg chaos.Config) int {
	if addr == "" {
		srv, err := redistest.Start()
		if err != nil {
			fmt.Fprintln(os.Stderr, "soak:", err)
			return 2
		}
		defer srv.Close()
		addr = srv.Addr
	}
	cfg.Redis = addr
	start := time.Now()
	cfg.Logf = func(format string, args ...any) {
		fmt.Printf("%6.0fs  "+format+"\n", append([]any{time.Since(start).Seconds()}, args...)...)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()

	fmt.Printf("soak: %d clients x %d owners on %d locks, lease %v, faults %v, for %v (redis %s)\n",
		cfg.Clients, cfg.WorkersPerClient, cfg.Names, cfg.Lease, cfg.Faults, cfg.Duration, addr)
	res, err := chaos.Run(ctx, cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		return 2
	}
	fmt.Printf("\nseed %d, ran %v\n", res.Seed, res.Elapsed.Round(time.Millisecond))
	fmt.Printf("acquisitions       %d (%.0f/s)\n", res.Acquisitions(), float64(res.Acquisitions())/res.Elapsed.Seconds())
	fmt.Printf("lost-lock signals  %d (%d already lost when Lock returned)\n", res.Lost, res.LostAtStart)
	fmt.Printf("guarded writes     %d (rejected by the fenced store: %d)\n", res.Steps, res.Rejected)
	fmt.Printf("unlock not held    %d, unlock gave up %d, unlock retries %d, lock errors %d\n",
		res.NotHeld, res.UnlockFail, res.UnlockRetries, res.LockErrors)
	total, kinds := 0, []string{}
	for _, name := range slices.Sorted(maps.Keys(res.Faults)) {
		total += res.Faults[name]
		kinds = append(kinds, fmt.Sprintf("%s %d", name, res.Faults[name]))
	}
	fmt.Printf("faults             %d (%s)\n", total, strings.Join(kinds, ", "))
	fmt.Printf("violations         %d (overlaps %d, token regressions %d, duplicate tokens %d, rejected while held %d, not-held without Lost %d)\n",
		res.Violations(), res.Overlaps, res.TokenRegressions, res.DuplicateTokens, res.RejectedWhileHeld, res.NotHeldWithoutLost)
	for _, e := range res.Examples {
		fmt.Println("  ", e)
	}
	if res.Violations() > 0 {
		return 1
	}
	return 0
}
