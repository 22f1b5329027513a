package harness

import (
	"context"
	"fmt"
	"os"
	"runtime/pprof"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/bench/internal/redisstats"
	"github.com/relock-go/relock/bench/internal/strategy"
)

// Phase is what one phase of a many-locks run (the waiters settling, the
// locks draining) cost, and where the time went: the commands the server
// ran, by name (commands inside scripts included); the CPU time of the
// server and of this process; the round trips of the Clients; their waits
// for a pooled connection; and, from the Clients' events, the wake-ups by
// releases and the acquire attempts of the acquisitions that ended.
type Phase struct {
	Seconds     float64          `json:"seconds"`
	ServerCalls redisstats.Calls `json:"server_calls"`
	// RedisCPUSeconds is the server's used_cpu_user + used_cpu_sys;
	// GoCPUSeconds this process's user + system time (every Client, and
	// the benchmark's own goroutines).
	RedisCPUSeconds float64 `json:"redis_cpu_seconds"`
	GoCPUSeconds    float64 `json:"go_cpu_seconds"`
	// NodeCPUSeconds is each server's share of RedisCPUSeconds (a
	// Cluster's masters).
	NodeCPUSeconds []float64 `json:"node_cpu_seconds,omitempty"`
	RoundTrips     int64     `json:"client_round_trips"`
	// PoolWaits is how many commands waited for a connection of a
	// go-redis pool, for PoolWaitSeconds in all; PoolTimeouts gave up.
	PoolWaits       int64   `json:"pool_waits"`
	PoolWaitSeconds float64 `json:"pool_wait_seconds"`
	PoolTimeouts    int64   `json:"pool_timeouts"`
	Woken           int64   `json:"woken"`
	Attempts        int64   `json:"attempts"`
}

// Per returns the server's calls of the named commands (all but the
// bookkeeping when none is named) per n: per waiter, per acquisition.
func (p Phase) Per(n float64, names ...string) float64 {
	if n == 0 {
		return 0
	}
	if len(names) == 0 {
		return float64(p.ServerCalls.Total()) / n
	}
	var c int64
	for _, name := range names {
		c += p.ServerCalls[name]
	}
	return float64(c) / n
}

// phaseMark is the counters at the start of a phase.
type phaseMark struct {
	at       time.Time
	calls    redisstats.Calls
	redisCPU []float64
	goCPU    float64
	trips    int64
	pool     redis.PoolStats
	woken    int64
	attempts int64
}

// phaseMeter takes a phase's marks: of the servers, the Clients' command
// counters and connection pools, and their tally.
type phaseMeter struct {
	srv      servers
	counters []*redisstats.Counter
	pools    []func() *redis.PoolStats
	tally    *strategy.Tally
	// profile, if set, is the path prefix of a CPU profile of each phase
	// (profile-settle.pprof, profile-drain.pprof).
	profile string
}

func (m phaseMeter) mark(ctx context.Context) (phaseMark, error) {
	k := phaseMark{at: time.Now(), goCPU: processCPU()}
	var err error
	if k.calls, err = m.srv.calls(ctx); err != nil {
		return k, err
	}
	if k.redisCPU, err = m.srv.cpu(ctx); err != nil {
		return k, err
	}
	for _, c := range m.counters {
		k.trips += c.Snapshot().RoundTrips
	}
	for _, p := range m.pools {
		s := p()
		k.pool.WaitCount += s.WaitCount
		k.pool.WaitDurationNs += s.WaitDurationNs
		k.pool.Timeouts += s.Timeouts
	}
	if t := m.tally; t != nil {
		k.woken, k.attempts = t.Woken.Load(), t.Attempts.Load()
	}
	return k, nil
}

// start marks the start of phase name, and starts its CPU profile.
func (m phaseMeter) start(ctx context.Context, name string) (phaseMark, func(), error) {
	stop := func() {}
	if m.profile != "" {
		f, err := os.Create(fmt.Sprintf("%s-%s.pprof", m.profile, name))
		if err != nil {
			return phaseMark{}, stop, err
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			f.Close()
			return phaseMark{}, stop, err
		}
		stop = func() { pprof.StopCPUProfile(); f.Close() }
	}
	k, err := m.mark(ctx)
	if err != nil {
		stop()
	}
	return k, stop, err
}

// since returns the phase from k to now.
func (m phaseMeter) since(ctx context.Context, k phaseMark) (Phase, error) {
	now, err := m.mark(ctx)
	if err != nil {
		return Phase{}, err
	}
	p := Phase{
		Seconds:         now.at.Sub(k.at).Seconds(),
		ServerCalls:     now.calls.Sub(k.calls),
		GoCPUSeconds:    now.goCPU - k.goCPU,
		RoundTrips:      now.trips - k.trips,
		PoolWaits:       int64(now.pool.WaitCount) - int64(k.pool.WaitCount),
		PoolWaitSeconds: float64(now.pool.WaitDurationNs-k.pool.WaitDurationNs) / 1e9,
		PoolTimeouts:    int64(now.pool.Timeouts) - int64(k.pool.Timeouts),
		Woken:           now.woken - k.woken,
		Attempts:        now.attempts - k.attempts,
	}
	for i := range now.redisCPU {
		d := now.redisCPU[i] - k.redisCPU[i]
		p.RedisCPUSeconds += d
		p.NodeCPUSeconds = append(p.NodeCPUSeconds, d)
	}
	return p, nil
}
