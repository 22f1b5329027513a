// Command compare runs the same three gocron schedulers with three
// lockers, each fleet on a redis-server of its own, and prints a table of
// what they ran: relockgocron's Locker, the SET NX + TTL locker of gocron's
// documentation, and a redsync locker (as go-co-op's redis locker).
//
//	cd rlock/relockgocron/compare && go run .
//
// Scenarios: a short job (10 ms every second, schedulers 0, 100 and 200 ms
// apart), a job longer than the lock's expiry (3 s every second, expiry
// and watchdog lease 2 s), and an instance killed in the middle of a run
// (600 ms every second). docs/scheduling.md shows the table.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/go-co-op/gocron/v2"
	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/rlock"
	"github.com/relock-go/relock/rlock/relockgocron"
	"github.com/relock-go/relock/rlock/relockgocron/internal/fleet"
	"github.com/relock-go/relock/test/redistest"
)

// instanceEnv, set in the environment, makes this program an instance of
// a fleet.
const instanceEnv = "COMPARE_INSTANCE"

// expiry is every locker's lease: the fixed TTL and expiry, and relock's
// watchdog timeout.
const expiry = 2 * time.Second

func main() {
	var err error
	if os.Getenv(instanceEnv) != "" {
		err = instance(os.Args[1:])
	} else {
		err = compare(os.Args[1:])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "compare:", err)
		os.Exit(1)
	}
}

// instance runs one scheduler of a fleet with the locker named by -locker.
func instance(args []string) error {
	var locker string
	flags := func(fs *flag.FlagSet) { fs.StringVar(&locker, "locker", "relock", "relock, setnx or redsync") }
	return fleet.Instance(args, flags, func(ctx context.Context, s fleet.Schedule, rdb *redis.Client, rec *fleet.Recorder) error {
		var l gocron.Locker
		var hold func(context.Context) (context.Context, context.CancelFunc)
		switch locker {
		case "setnx":
			l = setnxLocker{rdb, expiry}
		case "redsync":
			l = newRedsyncLocker(rdb, expiry)
		case "relock":
			client, err := rlock.New(rdb, rlock.WithWatchdogTimeout(expiry))
			if err != nil {
				return err
			}
			defer client.Close()
			rl, err := relockgocron.NewLocker(client, relockgocron.WithSplay(500*time.Millisecond))
			if err != nil {
				return err
			}
			l, hold = rl, func(ctx context.Context) (context.Context, context.CancelFunc) { return rl.Context(ctx, fleet.JobName) }
		default:
			return fmt.Errorf("unknown locker %q", locker)
		}
		return fleet.Serve(ctx, s, rec, hold, gocron.WithDistributedLocker(l))
	})
}

// scenario is a schedule, and whether an instance is killed in a run.
type scenario struct {
	name  string
	sched fleet.Schedule
	kill  bool
}

var (
	offsets   = []time.Duration{0, 100 * time.Millisecond, 200 * time.Millisecond}
	lockers   = []string{"relock", "setnx", "redsync"}
	scenarios = []scenario{
		{"short job (10 ms)", fleet.Schedule{Interval: time.Second, Run: 10 * time.Millisecond}, false},
		{"job longer than the expiry (3 s)", fleet.Schedule{Interval: time.Second, Run: 3 * time.Second}, false},
		{"instance killed mid-run (600 ms job)", fleet.Schedule{Interval: time.Second, Run: 600 * time.Millisecond}, true},
	}
)

// compare runs every scenario with every locker, all at once, and prints
// the table.
func compare(args []string) error {
	fs := flag.NewFlagSet("compare", flag.ContinueOnError)
	length := fs.Duration("for", 20*time.Second, "how long each fleet runs")
	if err := fs.Parse(args); err != nil {
		return err
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	type row struct {
		tally fleet.Tally
		err   error
	}
	rows := make([][]row, len(scenarios))
	var wg sync.WaitGroup
	for i, sc := range scenarios {
		rows[i] = make([]row, len(lockers))
		for j, locker := range lockers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				sc.sched.For = *length
				rows[i][j].tally, rows[i][j].err = run(exe, locker, sc)
			}()
		}
	}
	wg.Wait()
	fmt.Printf("Three schedulers 0, 100 and 200 ms apart, a tick every second for %v; lock expiry (relock: watchdog lease) %v.\n\n", *length, expiry)
	fmt.Println("| scenario | locker | ticks | run once | run twice or more | skipped during a run | missed | overlapping runs |")
	fmt.Println("| --- | --- | --- | --- | --- | --- | --- | --- |")
	var failed []string
	for i, sc := range scenarios {
		for j, locker := range lockers {
			r := rows[i][j]
			if r.err != nil {
				failed = append(failed, fmt.Sprintf("%s, %s: %v", sc.name, locker, r.err))
				continue
			}
			t := r.tally
			fmt.Printf("| %s | %s | %d | %d | %d | %d | %d | %d |\n", sc.name, locker, t.Ticks, t.Once, t.Twice, t.Busy, t.Missed, t.Overlaps)
		}
	}
	if len(failed) > 0 {
		return fmt.Errorf("%s", strings.Join(failed, "\n"))
	}
	return nil
}

// run runs the fleet of sc with locker on a redis-server of its own and
// judges its runs.
func run(exe, locker string, sc scenario) (fleet.Tally, error) {
	srv, err := redistest.Start()
	if err != nil {
		return fleet.Tally{}, err
	}
	defer srv.Close()
	s := sc.sched
	s.StartAt = time.Now().Add(3 * time.Second)
	f, err := fleet.Start(exe, []string{instanceEnv + "=1"}, len(offsets), func(i int) []string {
		o := s
		o.Offset = offsets[i]
		return append([]string{"-addr", srv.Addr, "-locker", locker}, o.Args()...)
	})
	if err != nil {
		return fleet.Tally{}, err
	}
	defer f.Stop()
	if sc.kill {
		ctx, cancel := context.WithDeadline(context.Background(), s.StartAt.Add(s.For))
		defer cancel()
		victim, err := f.Await(ctx, func(e fleet.Event) bool {
			return e.Kind == "start" && fleet.TickOf(s, offsets[e.Instance], e.At) >= 3
		})
		if err != nil {
			return fleet.Tally{}, fmt.Errorf("no run of tick 3: %w", err)
		}
		if err := f.Signal(victim.Instance, syscall.SIGKILL); err != nil {
			return fleet.Tally{}, err
		}
	}
	if err := f.Wait(); err != nil {
		return fleet.Tally{}, err
	}
	return fleet.Count(fleet.Runs(f.Events(), f.Killed()), s, offsets, 0, nil), nil
}
