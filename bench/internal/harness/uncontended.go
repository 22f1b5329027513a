package harness

import (
	"context"
	"fmt"
	"time"

	"github.com/relock-go/relock/bench/internal/redisstats"
	"github.com/relock-go/relock/bench/internal/strategy"
)

// UncontendedResult is the latency of Lock followed by Unlock on a free
// lock, next to PING round trips interleaved with it on the same client.
type UncontendedResult struct {
	Strategy string    `json:"strategy"`
	Family   string    `json:"family"`
	Lock     Quantiles `json:"lock"`
	Cycle    Quantiles `json:"lock_unlock"`
	Ping     Quantiles `json:"ping"`
	// CycleToTwoPings is Cycle.P50 / (2 × Ping.P50): 1 means the cycle
	// costs exactly two round trips.
	CycleToTwoPings float64 `json:"cycle_p50_to_two_pings"`
	// CyclesP99ToTwoPings is Cycle.P99 / (2 × Ping.P50).
	CycleP99ToTwoPings float64 `json:"cycle_p99_to_two_pings"`
	// CommandsPerCycle is the client commands per Lock+Unlock.
	CommandsPerCycle float64 `json:"client_commands_per_cycle"`
}

// Uncontended locks and unlocks a free lock for d (at least 200 cycles),
// one goroutine, sending a PING before each cycle.
func Uncontended(ctx context.Context, addr string, s strategy.Strategy, d time.Duration) (UncontendedResult, error) {
	rdb, counter := redisstats.NewClient(addr)
	defer rdb.Close()
	b, err := s.Open(rdb)
	if err != nil {
		return UncontendedResult{}, err
	}
	defer b.Close()
	l := b.NewLocker("bench:uncontended:" + s.Name)

	var locks, cycles, pings []time.Duration
	var cmds int64
	end := time.Now().Add(d)
	for i := 0; i < 200 || time.Now().Before(end); i++ {
		t := time.Now()
		if err := rdb.Ping(ctx).Err(); err != nil {
			return UncontendedResult{}, err
		}
		pings = append(pings, time.Since(t))

		before := counter.Snapshot()
		t = time.Now()
		if err := l.Lock(ctx); err != nil {
			return UncontendedResult{}, fmt.Errorf("%s: lock: %w", s.Name, err)
		}
		locked := time.Now()
		if err := l.Unlock(ctx); err != nil {
			return UncontendedResult{}, fmt.Errorf("%s: unlock: %w", s.Name, err)
		}
		cycles = append(cycles, time.Since(t))
		locks = append(locks, locked.Sub(t))
		cmds += counter.Snapshot().Sub(before).Commands
	}
	r := UncontendedResult{
		Strategy: s.Name, Family: s.Family,
		Lock: summarise(locks), Cycle: summarise(cycles), Ping: summarise(pings),
		CommandsPerCycle: float64(cmds) / float64(len(cycles)),
	}
	r.CycleToTwoPings = ratio(r.Cycle.P50, 2*r.Ping.P50)
	r.CycleP99ToTwoPings = ratio(r.Cycle.P99, 2*r.Ping.P50)
	return r, nil
}
