package harness

import (
	"context"
	"runtime"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/bench/internal/redisstats"
	"github.com/relock-go/relock/bench/internal/strategy"
)

// servers are the masters that a many-locks run's locks live on: one
// server, or the masters of a Redis Cluster. Their figures are summed.
type servers struct {
	nodes []*redis.Client
	// sharded: the Clients subscribe with SSUBSCRIBE (a Cluster's sharded
	// pub/sub), whose channels PUBSUB SHARDCHANNELS lists.
	sharded bool
}

// calls sums INFO commandstats over the servers.
func (s servers) calls(ctx context.Context) (redisstats.Calls, error) {
	sum := make(redisstats.Calls)
	for _, n := range s.nodes {
		c, err := redisstats.CommandCalls(ctx, n)
		if err != nil {
			return nil, err
		}
		for k, v := range c {
			sum[k] += v
		}
	}
	return sum, nil
}

// info sums the numeric fields of INFO sections over the servers.
func (s servers) info(ctx context.Context, sections ...string) (map[string]float64, error) {
	sum := make(map[string]float64)
	for _, n := range s.nodes {
		f, err := redisstats.Info(ctx, n, sections...)
		if err != nil {
			return nil, err
		}
		for k, v := range f {
			sum[k] += v
		}
	}
	return sum, nil
}

// cpu is each server's used_cpu_user + used_cpu_sys, in seconds.
func (s servers) cpu(ctx context.Context) ([]float64, error) {
	out := make([]float64, len(s.nodes))
	for i, n := range s.nodes {
		f, err := redisstats.Info(ctx, n, "cpu")
		if err != nil {
			return nil, err
		}
		out[i] = f["used_cpu_user"] + f["used_cpu_sys"]
	}
	return out, nil
}

// subscriptions sums the subscribers of the servers' channels whose names
// contain the locks' prefix.
func (s servers) subscriptions(ctx context.Context, prefix string) (int64, error) {
	var total int64
	for _, n := range s.nodes {
		list, count := n.PubSubChannels, n.PubSubNumSub
		if s.sharded {
			list, count = n.PubSubShardChannels, n.PubSubShardNumSub
		}
		channels, err := list(ctx, "*"+prefix+"*").Result()
		if err != nil {
			return 0, err
		}
		for i := 0; i < len(channels); i += 1000 {
			counts, err := count(ctx, channels[i:min(i+1000, len(channels))]...).Result()
			if err != nil {
				return 0, err
			}
			for _, n := range counts {
				total += n
			}
		}
	}
	return total, nil
}

// memoryMark is the servers' used_memory and this process's heap and
// goroutine stacks in use, after a GC, in bytes.
type memoryMark struct{ server, heap, stack float64 }

// memory returns the memory in use now.
func (s servers) memory(ctx context.Context) (memoryMark, error) {
	info, err := s.info(ctx, "memory")
	if err != nil {
		return memoryMark{}, err
	}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return memoryMark{server: info["used_memory"], heap: float64(ms.HeapInuse), stack: float64(ms.StackInuse)}, nil
}

// settleQuiet is the most client commands in a quarter second that count
// as the Clients being quiet: renewals and health checks, not attempts.
const settleQuiet = 100

// settle waits until the waiters have stopped sending SUBSCRIBE commands
// (since calls0) for a quarter second (and at least 500 ms), and either
// the Clients' commands (clientCmds counts them) have fallen to
// settleQuiet a quarter second, or done reports that every waiter has
// made its attempts (its first, and the one after it subscribed): so that
// every waiter has made its attempts and is asleep or polling. (With many
// waiters the first ones retry by their timers, at the lock's TTL, before
// the last ones are asleep: the Clients are never quiet then.)
func (s servers) settle(ctx context.Context, calls0 redisstats.Calls, clientCmds func() int64, done func() bool) error {
	last, lastCmds := int64(-1), clientCmds()
	if !sleepUntil(ctx, time.Now().Add(500*time.Millisecond)) {
		return ctx.Err()
	}
	for {
		calls, err := s.calls(ctx)
		if err != nil {
			return err
		}
		n, cmds := calls.Sub(calls0).PubSub(), clientCmds()
		if n == last && (cmds-lastCmds <= settleQuiet || done()) {
			return nil
		}
		last, lastCmds = n, cmds
		if !sleepUntil(ctx, time.Now().Add(250*time.Millisecond)) {
			return ctx.Err()
		}
	}
}

// errOf is the error p points to, or nil.
func errOf(p *error) error {
	if p == nil {
		return nil
	}
	return *p
}

// attempted reports whether every waiter of the run has made its two
// attempts, as the backends tell (strategy.Watched; false when they
// cannot), once the Clients' tally says that every one started waiting.
func (m ManyLocks) attempted(backends []strategy.Backend) bool {
	if m.Tally == nil || m.Tally.Waited.Load() < int64(m.Locks*m.Waiters) {
		return false
	}
	var waiters, attempts int
	for _, b := range backends {
		w, ok := b.(strategy.Watched)
		if !ok {
			return false
		}
		n, a := w.Waiting(2)
		waiters, attempts = waiters+n, attempts+a
	}
	return waiters == m.Locks*m.Waiters && attempts == 2*waiters
}
