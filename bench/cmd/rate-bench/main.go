// Command rate-bench compares relock's RateLimiter with
// go-redis/redis_rate (GCRA, one key) on one workload: G goroutines over
// C Clients, each calling Allow every pace, on a limit of L a second.
// For each it measures the accuracy (permits granted a second in steady
// state, over L), the busiest window of one second (its grants over L),
// Allow's latency (p50, p99) and what Redis spends per call: the
// scripts' time (INFO commandstats, EVALSHA's usec, the commands it runs
// included) and the server's CPU (INFO's used_cpu_sys + used_cpu_user).
// The two run interleaved, round by round, in one program on one
// redis-server (REDIS_ADDR, or one it starts), and the medians over the
// rounds are printed, with relock's figures over redis_rate's.
//
//	cd bench && go run ./cmd/rate-bench -rounds 5 -duration 3s
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/bench/internal/harness"
	"github.com/relock-go/relock/bench/internal/redisstats"
)

// config is one run's shape.
type config struct {
	limit, goroutines, clients, rounds int
	warmup, duration, pace             time.Duration
}

func main() {
	var c config
	flag.IntVar(&c.limit, "limit", 1000, "permits a second (L)")
	flag.IntVar(&c.goroutines, "goroutines", 64, "goroutines calling Allow (G)")
	flag.IntVar(&c.clients, "clients", 4, "Clients (and go-redis clients) the goroutines are spread over (C)")
	flag.IntVar(&c.rounds, "rounds", 5, "rounds; each runs both limiters once")
	flag.DurationVar(&c.warmup, "warmup", 1500*time.Millisecond, "each run's time before it measures: the limiter reaches its steady state")
	flag.DurationVar(&c.duration, "duration", 3*time.Second, "each run's measured time")
	flag.DurationVar(&c.pace, "pace", 32*time.Millisecond, "each goroutine's time between two calls (64 every 32 ms: twice L=1000)")
	flag.Parse()
	harness.Main(func(ctx context.Context, addr string) error { return run(ctx, os.Stdout, addr, c) })
}

// result is one limiter's run.
type result struct {
	asked    float64 // calls a second over the limit
	accuracy float64 // grants a second over the limit, measured
	busiest  float64 // the most grants in a window of one second, over the limit
	p50, p99 time.Duration
	// scriptUsec is EVALSHA's time per call; cpuUsec the server's CPU per
	// call.
	scriptUsec, cpuUsec float64
	commands            float64 // commands the script ran a call
	memory              float64 // bytes the limiter's keys take
}

// run runs the rounds and prints the medians.
func run(ctx context.Context, out io.Writer, addr string, c config) error {
	rdbs := make([]*redis.Client, c.clients)
	for i := range rdbs {
		rdbs[i] = redis.NewClient(&redis.Options{Addr: addr, PoolSize: c.goroutines})
		defer rdbs[i].Close()
	}
	got := make([][]result, len(limiters))
	for r := range c.rounds {
		for i, l := range limiters {
			res, err := once(ctx, rdbs, l, c, fmt.Sprintf("bench:rate:%d:%d", r, i))
			if err != nil {
				return fmt.Errorf("%s: %w", l.name, err)
			}
			got[i] = append(got[i], res)
		}
	}
	fmt.Fprintf(out, "L=%d a second, G=%d goroutines over %d Clients, each calling Allow every %v; %d rounds of %v after %v (medians)\n",
		c.limit, c.goroutines, c.clients, c.pace, c.rounds, c.duration, c.warmup)
	fmt.Fprintf(out, "%-11s %6s %9s %8s %10s %10s %14s %12s %10s %9s\n", "limiter", "asked", "accuracy", "busiest", "Allow p50", "Allow p99", "script µs/call", "CPU µs/call", "cmds/call", "memory")
	meds := make([]result, len(limiters))
	for i, l := range limiters {
		m := result{
			asked:      median(got[i], func(r result) float64 { return r.asked }),
			accuracy:   median(got[i], func(r result) float64 { return r.accuracy }),
			busiest:    median(got[i], func(r result) float64 { return r.busiest }),
			p50:        time.Duration(median(got[i], func(r result) float64 { return float64(r.p50) })),
			p99:        time.Duration(median(got[i], func(r result) float64 { return float64(r.p99) })),
			scriptUsec: median(got[i], func(r result) float64 { return r.scriptUsec }),
			cpuUsec:    median(got[i], func(r result) float64 { return r.cpuUsec }),
			commands:   median(got[i], func(r result) float64 { return r.commands }),
			memory:     median(got[i], func(r result) float64 { return r.memory }),
		}
		meds[i] = m
		fmt.Fprintf(out, "%-11s %6.2f %9.3f %8.3f %10v %10v %14.1f %12.1f %10.1f %8.0fB\n", l.name, m.asked, m.accuracy, m.busiest,
			m.p50.Round(time.Microsecond), m.p99.Round(time.Microsecond), m.scriptUsec, m.cpuUsec, m.commands, m.memory)
	}
	a, b := meds[0], meds[1]
	fmt.Fprintf(out, "%s / %s: accuracy %.3f, Allow p50 %.2fx, p99 %.2fx, script time %.2fx, server CPU %.2fx a call\n",
		limiters[0].name, limiters[1].name, a.accuracy/b.accuracy, float64(a.p50)/float64(b.p50), float64(a.p99)/float64(b.p99),
		a.scriptUsec/b.scriptUsec, a.cpuUsec/b.cpuUsec)
	return nil
}

// once runs limiter l for c.warmup and c.duration on the limiter name,
// and measures the latter.
func once(ctx context.Context, rdbs []*redis.Client, l limiter, c config, name string) (result, error) {
	allow, closeAll, err := l.open(ctx, rdbs, name, c.limit)
	if err != nil {
		return result{}, err
	}
	defer closeAll()
	var measuring, over time.Time
	start := time.Now()
	measuring, over = start.Add(c.warmup), start.Add(c.warmup+c.duration)
	var mu sync.Mutex
	var lat []time.Duration
	var grants []call
	var failed error
	var wg sync.WaitGroup
	for g := range c.goroutines {
		allow := allow(g % c.clients)
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine []time.Duration
			var got []call
			// The goroutines' calls are spread evenly over the pace.
			next := start.Add(c.pace * time.Duration(g) / time.Duration(c.goroutines))
			time.Sleep(time.Until(next))
			for {
				now := time.Now()
				if !now.Before(over) {
					break
				}
				ok, err := allow(ctx)
				took := time.Since(now)
				if err != nil {
					mu.Lock()
					failed = err
					mu.Unlock()
					break
				}
				if now.After(measuring) {
					mine = append(mine, took)
					if ok {
						got = append(got, call{now, now.Add(took)})
					}
				}
				next = next.Add(c.pace)
				time.Sleep(time.Until(next))
			}
			mu.Lock()
			lat, grants = append(lat, mine...), append(grants, got...)
			mu.Unlock()
		}()
	}
	// The server's counters, once the warm-up is over.
	time.Sleep(time.Until(measuring))
	before, err := serverStats(ctx, rdbs[0])
	if err != nil {
		return result{}, err
	}
	time.Sleep(time.Until(over))
	after, err := serverStats(ctx, rdbs[0])
	wg.Wait()
	if failed != nil {
		return result{}, failed
	}
	if err != nil {
		return result{}, err
	}
	calls := float64(after.evalsha.Calls - before.evalsha.Calls)
	var memory int64
	for _, k := range l.keys(name) {
		n, err := rdbs[0].MemoryUsage(ctx, k, 0).Result() // SAMPLES 0: every member
		if err != nil {
			return result{}, fmt.Errorf("MEMORY USAGE %s: %w", k, err)
		}
		memory += n
	}
	slices.Sort(lat)
	return result{
		asked:      float64(len(lat)) / c.duration.Seconds() / float64(c.limit),
		accuracy:   float64(len(grants)) / c.duration.Seconds() / float64(c.limit),
		busiest:    float64(busiest(grants, time.Second)) / float64(c.limit),
		p50:        lat[len(lat)/2],
		p99:        lat[len(lat)*99/100],
		scriptUsec: float64(after.evalsha.Usec-before.evalsha.Usec) / calls,
		cpuUsec:    (after.cpu - before.cpu) * 1e6 / calls,
		commands:   float64(after.commands-before.commands)/calls - 1,
		memory:     float64(memory),
	}, nil
}

// stats are the server's counters the benchmark reads.
type stats struct {
	evalsha  redisstats.Time
	commands int64   // every command run, scripts' and EVALSHA included
	cpu      float64 // used_cpu_sys + used_cpu_user, seconds
}

func serverStats(ctx context.Context, rdb *redis.Client) (stats, error) {
	times, err := redisstats.CommandTimes(ctx, rdb)
	if err != nil {
		return stats{}, err
	}
	cpu, err := redisstats.Info(ctx, rdb, "cpu")
	if err != nil {
		return stats{}, err
	}
	var commands int64
	for name, t := range times {
		if name != "info" {
			commands += t.Calls
		}
	}
	return stats{evalsha: times["evalsha"], commands: commands, cpu: cpu["used_cpu_sys"] + cpu["used_cpu_user"]}, nil
}

// call is when a granted call began and returned: the limiter stamped
// its permit in between (a loaded machine may delay the stamp well after
// the call began).
type call struct{ from, to time.Time }

// busiest is the most grants surely stamped within one window of width:
// a window begins as a call begins, and holds the calls that began
// there or later and returned before it ends. A grant stamped late is
// counted in fewer windows, never in a window it may not belong to, so
// a limiter that keeps its limit never shows more than it.
func busiest(calls []call, width time.Duration) int {
	slices.SortFunc(calls, func(a, b call) int { return a.from.Compare(b.from) })
	most := 0
	for i, first := range calls {
		end, n := first.from.Add(width), 0
		for _, c := range calls[i:] {
			if !c.from.Before(end) {
				break
			}
			if c.to.Before(end) {
				n++
			}
		}
		most = max(most, n)
	}
	return most
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
