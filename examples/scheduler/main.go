// Command scheduler is a job scheduler on a PermitExpirableSemaphore:
// workers take jobs, at most K run at once across every process that
// shares the semaphore, and the permit of a worker that dies mid-job comes
// back when its lease ends. Each job calls a rendering API that allows 100
// calls a second, which a RateLimiter shared by every worker keeps to.
// Then one runner for the nightly job, with an Election: one instance
// leads and runs it, fencing its writes with its term's token, and when it
// shuts down (Client.Close ends its term) the next instance leads
// (nightly.go).
//
// It runs on an embedded miniredis, or on the Redis at REDIS_ADDR if set;
// a Java service using Redisson's RPermitExpirableSemaphore and
// RRateLimiter of the same names would share the K slots and the API's
// calls.
//
//	make scheduler
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/rlock"
)

func main() {
	addr := os.Getenv("REDIS_ADDR")
	if addr == "" {
		m := miniredis.NewMiniRedis()
		if err := m.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		defer m.Close()
		addr = m.Addr()
	}
	if _, _, err := run(context.Background(), os.Stdout, addr, 6, 2); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println()
	if _, _, err := nightly(context.Background(), os.Stdout, addr, 3, 3); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// apiRate is what the rendering API allows: 100 calls a second, at most
// 10 in any 100 ms.
var apiRate = rlock.Rate{Limit: 10, Interval: 100 * time.Millisecond}

// run starts workers workers, each a Client of its own as a process would
// be, that run three jobs each with at most k at once; worker 0 dies in
// its first job. Each job calls the rendering API three times, within
// apiRate. It returns the most jobs seen running at once and the calls to
// the API.
func run(ctx context.Context, out io.Writer, addr string, workers, k int) (int64, []time.Time, error) {
	rdb := redis.NewClient(&redis.Options{Addr: addr})
	defer rdb.Close()
	const name, lease = "jobs:render", 2 * time.Second
	var running, most atomic.Int64
	var mu sync.Mutex
	var calls []time.Time
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		c, err := rlock.New(rdb)
		if err != nil {
			return 0, nil, err
		}
		defer c.Close()
		slots := c.NewPermitExpirableSemaphore(name)
		if _, err := slots.TrySetPermits(ctx, k); err != nil {
			return 0, nil, err
		}
		api := c.NewRateLimiter("api:render")
		if _, err := api.TrySetRate(ctx, apiRate); err != nil {
			return 0, nil, err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for job := range 3 {
				p, err := slots.Acquire(ctx, lease) // a slot, for one lease
				if err != nil {
					errs <- err
					return
				}
				now := running.Add(1)
				for m := most.Load(); now > m && !most.CompareAndSwap(m, now); m = most.Load() {
				}
				fmt.Fprintf(out, "worker %d: job %d starts (%d running)\n", w, job, now)
				for range 3 { // the job: three calls to the rendering API
					if err := api.Wait(ctx); err != nil {
						errs <- err
						return
					}
					mu.Lock()
					calls = append(calls, time.Now())
					mu.Unlock()
					time.Sleep(2 * time.Millisecond)
				}
				running.Add(-1)
				if w == 0 {
					fmt.Fprintf(out, "worker %d dies holding its slot; it comes back within %v\n", w, lease)
					return
				}
				if err := slots.ReleasePermit(ctx, p); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		return 0, nil, err
	}
	slices.SortFunc(calls, func(a, b time.Time) int { return a.Compare(b) })
	took := calls[len(calls)-1].Sub(calls[0])
	fmt.Fprintf(out, "done: at most %d of %d jobs ran at once; %d API calls in %v, %.0f a second (the API allows %d)\n",
		most.Load(), k, len(calls), took.Round(time.Millisecond), float64(len(calls)-1)/took.Seconds(), apiRate.Limit*int(time.Second/apiRate.Interval))
	return most.Load(), calls, nil
}
