package harness

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/bench/internal/redisstats"
	"github.com/relock-go/relock/bench/internal/strategy"
	"github.com/relock-go/relock/rlock"
)

// Watchdog describes a run where one relock Client holds Locks locks taken
// with Lock (no lease) and its watchdog renews them every Timeout/3.
type Watchdog struct {
	Addr    string
	Locks   int
	Timeout time.Duration
	// Periods is how many renewal periods are watched.
	Periods int
}

// WatchdogResult is what renewing the locks cost per renewal period.
type WatchdogResult struct {
	Locks          int     `json:"locks"`
	TimeoutSeconds float64 `json:"watchdog_timeout_seconds"`
	Periods        float64 `json:"periods"`
	// Per renewal period: client round trips (a pipeline is one), client
	// commands, and commands the server ran (script bodies included).
	RoundTripsPerPeriod float64 `json:"round_trips_per_period"`
	ClientCmdsPerPeriod float64 `json:"client_commands_per_period"`
	ServerCmdsPerPeriod float64 `json:"server_commands_per_period"`
	// MaxBurstLocks is the most locks one renewal pipeline renewed, and
	// MaxBurstMillis the longest such pipeline took, in PING round trips
	// (MaxBurstRTTs): how long the renewals hold Redis at once.
	MaxBurstLocks  int     `json:"max_burst_locks"`
	MaxBurstMillis float64 `json:"max_burst_ms"`
	MaxBurstRTTs   float64 `json:"max_burst_rtts"`
	// Lost counts locks reported lost, Expired the locks found without a
	// positive TTL at the end: both must be 0.
	Lost    int `json:"lost"`
	Expired int `json:"expired"`
}

// Run runs the scenario; admin is a client for INFO, outside the counts.
func (w Watchdog) Run(ctx context.Context, admin *redis.Client) (WatchdogResult, error) {
	r := WatchdogResult{Locks: w.Locks, TimeoutSeconds: w.Timeout.Seconds()}
	rdb, counter := redisstats.NewClient(w.Addr)
	defer rdb.Close()
	// The batches of one pipeline are reported together, with its time.
	var mu sync.Mutex
	bursts := map[time.Duration]int{} // pipeline latency -> locks renewed
	watch := rlock.ObserverFunc(func(e rlock.Event) {
		if e.Type == rlock.EventRenewed {
			mu.Lock()
			bursts[e.Latency] += e.Count
			mu.Unlock()
		}
	})
	c, err := rlock.New(rdb, rlock.WithWatchdogTimeout(w.Timeout), rlock.WithObserver(watch))
	if err != nil {
		return r, err
	}
	defer c.Close()
	prefix := fmt.Sprintf("bench:watchdog:%d:", time.Now().UnixNano())
	mutexes := make([]*rlock.Mutex, w.Locks)
	lockers := make([]strategy.Locker, w.Locks)
	for i := range mutexes {
		mutexes[i] = c.NewMutex(fmt.Sprintf("%s%d", prefix, i))
		lockers[i] = mutexes[i]
	}
	if err := parallel(ctx, lockers, func(l strategy.Locker) error { return l.Lock(ctx) }); err != nil {
		return r, fmt.Errorf("take the locks: %w", err)
	}

	mu.Lock()
	clear(bursts) // the renewals of the measured periods only
	mu.Unlock()
	cli0 := counter.Snapshot()
	srv0, err := redisstats.CommandCalls(ctx, admin)
	if err != nil {
		return r, err
	}
	start := time.Now()
	if !sleepUntil(ctx, start.Add(time.Duration(w.Periods)*w.Timeout/3)) {
		return r, ctx.Err()
	}
	cli := counter.Snapshot().Sub(cli0)
	srv1, err := redisstats.CommandCalls(ctx, admin)
	if err != nil {
		return r, err
	}
	r.Periods = time.Since(start).Seconds() / (w.Timeout / 3).Seconds()
	r.RoundTripsPerPeriod = float64(cli.RoundTrips) / r.Periods
	r.ClientCmdsPerPeriod = float64(cli.Commands) / r.Periods
	r.ServerCmdsPerPeriod = float64(srv1.Sub(srv0).Total()) / r.Periods
	mu.Lock()
	for took, n := range bursts {
		if took > time.Duration(r.MaxBurstMillis*float64(time.Millisecond)) {
			r.MaxBurstMillis = float64(took) / float64(time.Millisecond)
		}
		r.MaxBurstLocks = max(r.MaxBurstLocks, n)
	}
	mu.Unlock()
	if rtt, err := PingRTT(ctx, admin, 200); err == nil && rtt.P50 > 0 {
		r.MaxBurstRTTs = r.MaxBurstMillis / rtt.P50
	}

	for _, m := range mutexes {
		select {
		case <-m.Lost():
			r.Lost++
		default:
		}
	}
	pipe := admin.Pipeline()
	ttls := make([]*redis.DurationCmd, len(mutexes))
	for i, m := range mutexes {
		ttls[i] = pipe.PTTL(ctx, m.Name())
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return r, err
	}
	for _, t := range ttls {
		if t.Val() <= 0 {
			r.Expired++
		}
	}
	if err := parallel(ctx, lockers, func(l strategy.Locker) error { return l.Unlock(context.Background()) }); err != nil {
		return r, fmt.Errorf("release the locks: %w", err)
	}
	return r, nil
}
