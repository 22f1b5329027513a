package harness

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/bench/internal/redisstats"
	"github.com/relock-go/relock/bench/internal/strategy"
)

// UncontendedResult is the latency of Lock followed by Unlock on a free
// lock with one strategy, measured in the same cycles as the others'.
type UncontendedResult struct {
	Strategy string    `json:"strategy"`
	Family   string    `json:"family"`
	Lock     Quantiles `json:"lock"`
	Cycle    Quantiles `json:"lock_unlock"`
	// Pairs is how many Lock+Unlock pairs were measured: one per cycle.
	Pairs int `json:"pairs"`
	// CommandsPerCycle is the client commands per Lock+Unlock.
	CommandsPerCycle float64 `json:"client_commands_per_cycle"`
	// ServerCommandsPerCycle is the commands Redis runs per Lock+Unlock,
	// those inside scripts included (INFO commandstats, over a pass of
	// this strategy alone after the interleaved cycles).
	ServerCommandsPerCycle float64 `json:"server_commands_per_cycle"`
	// P50Ratio and P99Ratio are Cycle.P50 and Cycle.P99 over those of the
	// reference strategy (UncontendedReference, when run), from the same
	// cycles; PairRatioP50 is the median, over cycles, of this pair's time
	// over the reference's pair of the same cycle.
	P50Ratio     float64 `json:"p50_ratio,omitempty"`
	P99Ratio     float64 `json:"p99_ratio,omitempty"`
	PairRatioP50 float64 `json:"pair_ratio_p50,omitempty"`
}

// UncontendedReference names the strategy the others' uncontended
// latencies are divided by: the first whose name starts with it (the
// redislock strategies differ only when the lock is taken).
const UncontendedReference = "redislock"

// uncontendedPass is how many pairs each strategy runs alone, after the
// interleaved cycles, to count the commands Redis runs per pair.
const uncontendedPass = 200

// uncontended is one strategy's locker and what its pairs measured.
type uncontended struct {
	s             strategy.Strategy
	rdb           *redis.Client
	counter       *redisstats.Counter
	b             strategy.Backend
	l             strategy.Locker
	locks, cycles []time.Duration
	cmds          int64
	serverCmds    float64
}

// Uncontended locks and unlocks a free lock with each strategy, one
// goroutine, for about d in all: each cycle runs one pair of every
// strategy, in an order drawn at random for the cycle, so that a slow
// moment of a shared machine falls on all of them alike and the ratios
// compare pairs of the same cycles. Nothing is normalised by a PING.
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
	// Warm up: connections dialled, scripts loaded.
	for _, u := range us {
		for range 20 {
			if _, _, err := u.pair(ctx); err != nil {
				return nil, err
			}
		}
	}
	order := slices.Clone(us)
	end := time.Now().Add(d)
	for i := 0; i < 10 || time.Now().Before(end); i++ {
		rand.Shuffle(len(order), func(a, b int) { order[a], order[b] = order[b], order[a] })
		for _, u := range order {
			before := u.counter.Snapshot()
			lock, cycle, err := u.pair(ctx)
			if err != nil {
				return nil, err
			}
			u.locks, u.cycles = append(u.locks, lock), append(u.cycles, cycle)
			u.cmds += u.counter.Snapshot().Sub(before).Commands
		}
	}
	for _, u := range us {
		if err := u.countServer(ctx); err != nil {
			return nil, err
		}
	}
	return uncontendedResults(us), nil
}

// uncontendedResults summarises us, with ratios to the reference's pairs.
func uncontendedResults(us []*uncontended) []UncontendedResult {
	var ref *uncontended
	for _, u := range us {
		if ref == nil && strings.HasPrefix(u.s.Name, UncontendedReference) {
			ref = u
		}
	}
	rs := make([]UncontendedResult, 0, len(us))
	for _, u := range us {
		r := UncontendedResult{
			Strategy: u.s.Name, Family: u.s.Family,
			Lock: summarise(u.locks), Cycle: summarise(u.cycles), Pairs: len(u.cycles),
			CommandsPerCycle:       float64(u.cmds) / float64(len(u.cycles)),
			ServerCommandsPerCycle: u.serverCmds,
		}
		if ref != nil {
			rc := summarise(ref.cycles)
			r.P50Ratio, r.P99Ratio = ratio(r.Cycle.P50, rc.P50), ratio(r.Cycle.P99, rc.P99)
			per := make([]float64, len(u.cycles))
			for i, c := range u.cycles {
				per[i] = float64(c) / float64(ref.cycles[i])
			}
			slices.Sort(per)
			r.PairRatioP50 = per[len(per)/2]
		}
		rs = append(rs, r)
	}
	return rs
}

// pair is one Lock followed by Unlock: the time to lock, and to lock and
// unlock.
func (u *uncontended) pair(ctx context.Context) (lock, cycle time.Duration, err error) {
	t := time.Now()
	if err := u.l.Lock(ctx); err != nil {
		return 0, 0, fmt.Errorf("%s: lock: %w", u.s.Name, err)
	}
	locked := time.Now()
	if err := u.l.Unlock(ctx); err != nil {
		return 0, 0, fmt.Errorf("%s: unlock: %w", u.s.Name, err)
	}
	return locked.Sub(t), time.Since(t), nil
}

// countServer runs uncontendedPass pairs of u alone and records the
// commands Redis ran per pair.
func (u *uncontended) countServer(ctx context.Context) error {
	before, err := redisstats.CommandCalls(ctx, u.rdb)
	if err != nil {
		return err
	}
	for range uncontendedPass {
		if _, _, err := u.pair(ctx); err != nil {
			return err
		}
	}
	after, err := redisstats.CommandCalls(ctx, u.rdb)
	if err != nil {
		return err
	}
	u.serverCmds = float64(after.Sub(before).Total()) / uncontendedPass
	return nil
}
