// Command election-bench measures how long a leader election goes without
// a leader at a change of leader: from a leader's Resign to the next
// candidate's Campaign returning, and from a leader's process being
// killed (SIGKILL) to the next candidate's Campaign returning. It prints
// the distribution of each (p50, p90, p99, max over every hand-over). The
// two run interleaved, round by round, in one program on one
// redis-server (REDIS_ADDR, or one it starts); each candidate is a Client
// with a Redis connection pool of its own, as a process would have, and
// each killed leader is a process of its own: this program, started
// again with -child.
//
// A resignation passes the lock to the next candidate inside the release
// script, and the candidate learns it on its own channel: a hand-over
// costs a few round trips. A killed leader's lock expires a lease after
// its last renewal, which came up to a renewal period (a third of the
// lease) before the kill: the hand-over takes between two thirds of the
// lease and the lease, and each kill comes at a random moment of the
// renewal period.
//
//	cd bench && go run ./cmd/election-bench -rounds 5 -resigns 200 -kills 10 -lease 1s
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/bench/internal/harness"
)

// config is one run's shape.
type config struct {
	rounds, resigns, kills, candidates int
	lease                              time.Duration
}

func main() {
	var c config
	child := flag.Bool("child", false, "run as a killable leader: campaign in -name on -addr, print the term, block")
	addr := flag.String("addr", "", "with -child: the Redis server")
	name := flag.String("name", "", "with -child: the election")
	flag.IntVar(&c.rounds, "rounds", 5, "rounds; each runs both kinds of hand-over")
	flag.IntVar(&c.resigns, "resigns", 200, "hand-overs by Resign per round")
	flag.IntVar(&c.kills, "kills", 6, "hand-overs by a killed leader per round")
	flag.IntVar(&c.candidates, "candidates", 3, "candidates taking turns at Resign")
	flag.DurationVar(&c.lease, "lease", time.Second, "the terms' lease (watchdog timeout)")
	flag.Parse()
	if *child {
		if err := lead(*addr, *name, c.lease); err != nil {
			fmt.Fprintln(os.Stderr, "election-bench -child:", err)
			os.Exit(1)
		}
		return
	}
	addr2, stop, err := harness.Redis()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer stop()
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := run(context.Background(), os.Stdout, addr2, self, c); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// run runs the rounds, each the resignations then the kills, and prints
// both distributions; self is the program to start as a killable leader.
func run(ctx context.Context, out io.Writer, addr, self string, c config) error {
	rdb := redis.NewClient(&redis.Options{Addr: addr})
	defer rdb.Close()
	var resigns, kills []time.Duration
	var rtts []float64 // each round's PING p50, ms
	for r := range c.rounds {
		rtt, err := harness.PingRTT(ctx, rdb, 200)
		if err != nil {
			return err
		}
		rtts = append(rtts, rtt.P50)
		ds, err := resignations(ctx, addr, fmt.Sprintf("bench:election:resign:%d", r), c)
		if err != nil {
			return fmt.Errorf("round %d, resignations: %w", r, err)
		}
		resigns = append(resigns, ds...)
		ds, err = killings(ctx, addr, self, fmt.Sprintf("bench:election:kill:%d", r), c)
		if err != nil {
			return fmt.Errorf("round %d, kills: %w", r, err)
		}
		kills = append(kills, ds...)
	}
	fmt.Fprintf(out, "hand-over: from the leader's Resign, or its process's SIGKILL, to the next candidate's Campaign returning\n")
	fmt.Fprintf(out, "%d rounds; %d candidates taking turns at Resign; lease %v (renewed every %v)\n", c.rounds, c.candidates, c.lease, c.lease/3)
	fmt.Fprintf(out, "%-22s %6s %10s %10s %10s %10s\n", "hand-over after", "n", "p50", "p90", "p99", "max")
	line(out, "Resign", resigns)
	if len(resigns) > 0 {
		slices.Sort(rtts)
		rtt := time.Duration(rtts[len(rtts)/2] * float64(time.Millisecond))
		fmt.Fprintf(out, "Resign hand-overs in round trips (PING p50 %v): p50 %.1f, p90 %.1f\n", round(rtt),
			ratio(harness.Quantile(resigns, 0.5), rtt), ratio(harness.Quantile(resigns, 0.9), rtt))
	}
	line(out, fmt.Sprintf("kill -9 (lease %v)", c.lease), kills)
	if len(kills) > 0 {
		slices.Sort(kills)
		fmt.Fprintf(out, "kill hand-overs in leases: p50 %.2f, max %.2f (bound: lease + renewal period = 1.33)\n",
			ratio(harness.Quantile(kills, 0.5), c.lease), ratio(kills[len(kills)-1], c.lease))
	}
	return nil
}

// line prints the distribution of ds (which it sorts).
func line(out io.Writer, what string, ds []time.Duration) {
	if len(ds) == 0 {
		fmt.Fprintf(out, "%-22s %6d\n", what, 0)
		return
	}
	slices.Sort(ds)
	q := func(p float64) time.Duration { return round(harness.Quantile(ds, p)) }
	fmt.Fprintf(out, "%-22s %6d %10v %10v %10v %10v\n", what, len(ds), q(0.5), q(0.9), q(0.99), round(ds[len(ds)-1]))
}

// round rounds d for printing: to 10µs below 10ms, else to 0.1ms.
func round(d time.Duration) time.Duration {
	if d < 10*time.Millisecond {
		return d.Round(10 * time.Microsecond)
	}
	return d.Round(100 * time.Microsecond)
}

// ratio is d in units of of.
func ratio(d, of time.Duration) float64 { return float64(d) / float64(of) }
