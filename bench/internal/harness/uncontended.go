package harness

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

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

// uncontendedRounds is how many turns each strategy of Uncontended gets:
// the strategies take turns, so that a slow moment of a shared machine
// falls on all of them alike.
const uncontendedRounds = 20

// uncontended is one strategy's locker and what its turns measured.
type uncontended struct {
	s                    strategy.Strategy
	rdb                  *redis.Client
	counter              *redisstats.Counter
	b                    strategy.Backend
	l                    strategy.Locker
	locks, cycles, pings []time.Duration
	cmds                 int64
}

// Uncontended locks and unlocks a free lock with each strategy, one
// goroutine, sending a PING before each cycle: the strategies take
// uncontendedRounds turns each, d/uncontendedRounds long (at least 10
// cycles), so that each gets about d in all.
func Uncontended(ctx context.Context, addr string, ss []strategy.Strategy, d time.Duration) ([]UncontendedResult, error) {
	us := make([]*uncontended, 0, len(ss))
	defer func() {
		for _, u := range us {
			_ = u.b.Close()
			_ = u.rdb.Close()
		}
	}()
	for _, s := range ss {
		rdb, counter := redisstats.NewClient(addr)
		b, err := s.Open(rdb)
		if err != nil {
			_ = rdb.Close()
			return nil, err
		}
		us = append(us, &uncontended{s: s, rdb: rdb, counter: counter, b: b, l: b.NewLocker("bench:uncontended:" + s.Name)})
	}
	turn := d / uncontendedRounds
	for range uncontendedRounds {
		for _, u := range us {
			if err := u.run(ctx, turn); err != nil {
				return nil, err
			}
		}
	}
	rs := make([]UncontendedResult, 0, len(us))
	for _, u := range us {
		r := UncontendedResult{
			Strategy: u.s.Name, Family: u.s.Family,
			Lock: summarise(u.locks), Cycle: summarise(u.cycles), Ping: summarise(u.pings),
			CommandsPerCycle: float64(u.cmds) / float64(len(u.cycles)),
		}
		r.CycleToTwoPings = ratio(r.Cycle.P50, 2*r.Ping.P50)
		r.CycleP99ToTwoPings = ratio(r.Cycle.P99, 2*r.Ping.P50)
		rs = append(rs, r)
	}
	return rs, nil
}

// run is one turn of u: cycles for d, at least 10.
func (u *uncontended) run(ctx context.Context, d time.Duration) error {
	end := time.Now().Add(d)
	for i := 0; i < 10 || time.Now().Before(end); i++ {
		t := time.Now()
		if err := u.rdb.Ping(ctx).Err(); err != nil {
			return err
		}
		u.pings = append(u.pings, time.Since(t))

		before := u.counter.Snapshot()
		t = time.Now()
		if err := u.l.Lock(ctx); err != nil {
			return fmt.Errorf("%s: lock: %w", u.s.Name, err)
		}
		locked := time.Now()
		if err := u.l.Unlock(ctx); err != nil {
			return fmt.Errorf("%s: unlock: %w", u.s.Name, err)
		}
		u.cycles = append(u.cycles, time.Since(t))
		u.locks = append(u.locks, locked.Sub(t))
		u.cmds += u.counter.Snapshot().Sub(before).Commands
	}
	return nil
}
