// Command scheduler is a job scheduler on a PermitExpirableSemaphore:
// workers take jobs, at most K run at once across every process that
// shares the semaphore, and the permit of a worker that dies mid-job comes
// back when its lease ends. Then one runner for the nightly job, with an
// Election: one instance leads and runs it, fencing its writes with its
// term's token, and when it shuts down (Client.Close ends its term) the
// next instance leads (nightly.go).
//
// It runs on an embedded miniredis, or on the Redis at REDIS_ADDR if set;
// a Java service using Redisson's RPermitExpirableSemaphore of the same
// name would share the K slots.
//
//	make scheduler
package main

import (
	"context"
	"fmt"
	"io"
	"os"
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
	if _, err := run(context.Background(), os.Stdout, addr, 6, 2); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println()
	if _, _, err := nightly(context.Background(), os.Stdout, addr, 3, 3); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// run starts workers workers, each a Client of its own as a process would
// be, that run three jobs each with at most k at once; worker 0 dies in
// its first job. It returns the most jobs seen running at once.
func run(ctx context.Context, out io.Writer, addr string, workers, k int) (int64, error) {
	rdb := redis.NewClient(&redis.Options{Addr: addr})
	defer rdb.Close()
	const name, lease = "jobs:render", 500 * time.Millisecond
	var running, most atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		c, err := rlock.New(rdb)
		if err != nil {
			return 0, err
		}
		defer c.Close()
		slots := c.NewPermitExpirableSemaphore(name)
		if _, err := slots.TrySetPermits(ctx, k); err != nil {
			return 0, err
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
				time.Sleep(50 * time.Millisecond) // the job
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
		return 0, err
	}
	fmt.Fprintf(out, "done: at most %d of %d jobs ran at once\n", most.Load(), k)
	return most.Load(), nil
}
