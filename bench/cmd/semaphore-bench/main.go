// Command semaphore-bench measures a Semaphore of K permits contended by G
// goroutines over several Clients: acquisitions per second and the p99 of
// the wait, for waiters woken by pub/sub and for waiters polling every
// 1 ms and every 10 ms. The three run interleaved, round by round, in one
// program on one redis-server (REDIS_ADDR, or one it starts), and the
// medians over the rounds are printed.
//
//	cd bench && go run ./cmd/semaphore-bench -rounds 5 -duration 2s
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/bench/internal/harness"
	"github.com/relock-go/relock/rlock"
)

// mode is one way of waiting.
type mode struct {
	name string
	opts []rlock.Option
}

var modes = []mode{
	{"pub/sub", nil},
	{"poll 1ms", []rlock.Option{rlock.WithSpin(rlock.ConstantBackoff(time.Millisecond))}},
	{"poll 10ms", []rlock.Option{rlock.WithSpin(rlock.ConstantBackoff(10 * time.Millisecond))}},
}

// config is one run's shape.
type config struct {
	permits, goroutines, clients, rounds int
	duration, hold                       time.Duration
}

func main() {
	var c config
	flag.IntVar(&c.permits, "permits", 4, "the semaphore's permits (K)")
	flag.IntVar(&c.goroutines, "goroutines", 64, "contending goroutines (G)")
	flag.IntVar(&c.clients, "clients", 4, "Clients the goroutines are spread over")
	flag.IntVar(&c.rounds, "rounds", 5, "rounds; each runs every mode once")
	flag.DurationVar(&c.duration, "duration", 2*time.Second, "each mode's run per round")
	flag.DurationVar(&c.hold, "hold", time.Millisecond, "time a permit is held")
	flag.Parse()
	harness.Main(func(ctx context.Context, addr string) error { return run(ctx, os.Stdout, addr, c) })
}

// result is one mode's run.
type result struct {
	perSec float64
	p99    time.Duration
	// maxHeld is the most permits held at once, as the goroutines counted
	// them; left is the semaphore's available permits after the run.
	maxHeld, left int
}

// run runs the rounds and prints the medians.
func run(ctx context.Context, out io.Writer, addr string, c config) error {
	rdb := redis.NewClient(&redis.Options{Addr: addr, PoolSize: 2 * c.goroutines})
	defer rdb.Close()
	got := make([][]result, len(modes))
	for r := range c.rounds {
		for i, m := range modes {
			res, err := once(ctx, rdb, m, c, fmt.Sprintf("bench:sem:%d:%d", r, i))
			if err != nil {
				return err
			}
			got[i] = append(got[i], res)
		}
	}
	fmt.Fprintf(out, "K=%d permits, G=%d goroutines over %d Clients, hold %v, %d rounds of %v (medians)\n",
		c.permits, c.goroutines, c.clients, c.hold, c.rounds, c.duration)
	fmt.Fprintf(out, "%-10s %12s %12s\n", "waiting", "acq/s", "wait p99")
	for i, m := range modes {
		rate := median(got[i], func(r result) float64 { return r.perSec })
		p99 := median(got[i], func(r result) float64 { return float64(r.p99) })
		fmt.Fprintf(out, "%-10s %12.0f %12v\n", m.name, rate, time.Duration(p99).Round(10*time.Microsecond))
	}
	return nil
}

// once runs mode m for c.duration on the semaphore name.
func once(ctx context.Context, rdb *redis.Client, m mode, c config, name string) (result, error) {
	clients := make([]*rlock.Client, c.clients)
	for i := range clients {
		cl, err := rlock.New(rdb, m.opts...)
		if err != nil {
			return result{}, err
		}
		defer cl.Close()
		clients[i] = cl
	}
	if set, err := clients[0].NewSemaphore(name).TrySetPermits(ctx, c.permits); err != nil || !set {
		return result{}, fmt.Errorf("TrySetPermits(%d) on %s = %v, %v: the run would not measure K permits", c.permits, name, set, err)
	}
	rctx, cancel := context.WithTimeout(ctx, c.duration)
	defer cancel()
	var mu sync.Mutex
	var waits []time.Duration
	var wg sync.WaitGroup
	var failed error
	var held, maxHeld atomic.Int64
	for g := range c.goroutines {
		s := clients[g%c.clients].NewSemaphore(name)
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine []time.Duration
			for rctx.Err() == nil {
				start := time.Now()
				if err := s.Acquire(rctx, 1); err != nil {
					break
				}
				mine = append(mine, time.Since(start))
				raise(&maxHeld, held.Add(1))
				time.Sleep(c.hold)
				held.Add(-1)
				if err := s.Release(ctx, 1); err != nil {
					mu.Lock()
					failed = err
					mu.Unlock()
					break
				}
			}
			mu.Lock()
			waits = append(waits, mine...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	if failed != nil {
		return result{}, failed
	}
	left, err := clients[0].NewSemaphore(name).AvailablePermits(ctx)
	if err != nil {
		return result{}, err
	}
	// A run that held more than K permits at once, or lost or made some,
	// measured another semaphore than the one it names.
	if maxHeld.Load() > int64(c.permits) || left != c.permits {
		return result{}, fmt.Errorf("%s with %d permits: %d held at once, %d available after the run", m.name, c.permits, maxHeld.Load(), left)
	}
	slices.Sort(waits)
	res := result{perSec: float64(len(waits)) / c.duration.Seconds(), maxHeld: int(maxHeld.Load()), left: left}
	if len(waits) > 0 {
		res.p99 = waits[len(waits)*99/100]
	}
	return res, nil
}

// raise sets most to n if n is more.
func raise(most *atomic.Int64, n int64) {
	for m := most.Load(); n > m; m = most.Load() {
		if most.CompareAndSwap(m, n) {
			return
		}
	}
}

// median is the median of f over rs.
func median(rs []result, f func(result) float64) float64 {
	vs := make([]float64, len(rs))
	for i, r := range rs {
		vs[i] = f(r)
	}
	slices.Sort(vs)
	return vs[len(vs)/2]
}
