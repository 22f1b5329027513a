// Command gocron runs three go-co-op/gocron schedulers, as three
// processes of a service would, that share a job through relockgocron's
// Locker: every scheduler fires each tick, and each tick runs once. The
// three lines that distribute a scheduler are in newScheduler.
//
// It runs on the Redis at REDIS_ADDR, or on a redis-server it starts
// (test/redistest) when REDIS_ADDR is not set.
//
//	cd examples/gocron && go run .
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/go-co-op/gocron/v2"
	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/rlock"
	"github.com/relock-go/relock/rlock/relockgocron"
	"github.com/relock-go/relock/test/redistest"
)

func main() {
	addr := os.Getenv("REDIS_ADDR")
	if addr == "" {
		srv, err := redistest.Start()
		if err != nil {
			fmt.Fprintln(os.Stderr, err, "(set REDIS_ADDR to use a running Redis)")
			os.Exit(1)
		}
		defer srv.Close()
		addr = srv.Addr
	}
	if _, err := run(context.Background(), os.Stdout, addr, 3, 5*time.Second); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// newScheduler returns a gocron scheduler whose jobs run once per tick
// across every scheduler built the same way on rdb's Redis, and the
// Client to close after it.
func newScheduler(rdb *redis.Client) (gocron.Scheduler, *rlock.Client, error) {
	client, err := rlock.New(rdb)
	if err != nil {
		return nil, nil, err
	}
	locker, err := relockgocron.NewLocker(client)
	if err != nil {
		return nil, nil, err
	}
	s, err := gocron.NewScheduler(gocron.WithDistributedLocker(locker))
	return s, client, err
}

// run starts n schedulers, each with a Client of its own, running the job
// "report" every second, its ticks aligned on the second, for d. It
// prints who ran each tick and returns how many runs each tick had.
func run(ctx context.Context, out io.Writer, addr string, n int, d time.Duration) (map[time.Time]int, error) {
	rdb := redis.NewClient(&redis.Options{Addr: addr})
	defer rdb.Close()
	first := time.Now().Truncate(time.Second).Add(2 * time.Second)
	var mu sync.Mutex
	runs := make(map[time.Time]int)
	for i := range n {
		s, client, err := newScheduler(rdb)
		if err != nil {
			return nil, err
		}
		defer client.Close()
		defer s.Shutdown() //nolint:errcheck // before the Client closes
		report := func() {
			tick := time.Now().Round(time.Second)
			mu.Lock()
			runs[tick]++
			mu.Unlock()
			fmt.Fprintf(out, "%s: scheduler %d ran the report\n", tick.Format(time.TimeOnly), i)
		}
		_, err = s.NewJob(gocron.DurationJob(time.Second), gocron.NewTask(report),
			gocron.WithName("report"), gocron.WithStartAt(gocron.WithStartDateTime(first)))
		if err != nil {
			return nil, err
		}
		s.Start()
	}
	select {
	case <-time.After(time.Until(first.Add(d))):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	mu.Lock()
	defer mu.Unlock()
	return runs, nil
}
