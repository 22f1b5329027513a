package harness

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/bench/internal/redisstats"
	"github.com/relock-go/relock/bench/internal/strategy"
)

// ManyLocks describes a run with Locks distinct locks, each held by one
// owner while Waiters owners on other clients wait for it.
type ManyLocks struct {
	Addr string
	// Cluster, if set, is seed nodes of a Redis Cluster that the run uses
	// instead of Addr; Sharded tells that the strategy's Clients use
	// sharded pub/sub there.
	Cluster  []string
	Sharded  bool
	Strategy strategy.Strategy
	Locks    int
	Waiters  int
	Clients  int
	// Idle is how long the waiters are watched while every lock is held.
	Idle time.Duration
	// Tally, if set, is what the strategy's Clients count
	// (strategy.RelockCounted): the result reports its subscription
	// connections replaced, and the wake-ups and attempts of each phase.
	Tally *strategy.Tally
	// Profile, if set, is the path prefix of a CPU profile of the settle
	// and of the drain (Profile-settle.pprof, Profile-drain.pprof).
	Profile string
	// Trace, if set, is where a line on the run's progress goes every
	// TraceEvery.
	Trace      io.Writer
	TraceEvery time.Duration
	// Java, when its Names is above zero, puts Redisson's threads among
	// the waiters of that many locks.
	Java JavaWaiters
}

// Run runs the scenario; admin is a client of the server at Addr for
// INFO, outside the counts (unused on a Cluster).
func (m ManyLocks) Run(ctx context.Context, admin *redis.Client) (ManyLocksResult, error) {
	r := ManyLocksResult{Strategy: m.Strategy.Name, Locks: m.Locks, Waiters: m.Waiters, Clients: m.Clients}
	srv, closeServers, err := m.servers(ctx, admin)
	if err != nil {
		return r, err
	}
	defer closeServers()
	counters := make([]*redisstats.Counter, m.Clients)
	backends := make([]strategy.Backend, m.Clients)
	meter := phaseMeter{srv: srv, tally: m.Tally, profile: m.Profile}
	for i := range m.Clients {
		rdb, counter := m.connect()
		defer rdb.Close()
		meter.pools = append(meter.pools, rdb.PoolStats)
		b, err := m.Strategy.Open(rdb)
		if err != nil {
			return r, err
		}
		defer b.Close()
		counters[i], backends[i] = counter, b
	}
	meter.counters = counters
	if m.Trace != nil && m.TraceEvery > 0 {
		tctx, stop := context.WithCancel(ctx)
		defer stop()
		go m.trace(tctx, m.Trace, meter, m.TraceEvery)
	}
	clientCmds := func() int64 {
		var n int64
		for _, c := range counters {
			n += c.Snapshot().Commands
		}
		return n
	}
	var errs atomic.Int64
	var firstErr atomic.Pointer[error]
	fail := func(err error) {
		errs.Add(1)
		firstErr.CompareAndSwap(nil, &err)
	}

	mem0, err := srv.memory(ctx)
	if err != nil {
		return r, err
	}
	prefix := fmt.Sprintf("bench:many:%s:%d:", m.Strategy.Name, time.Now().UnixNano())
	names := make([]string, m.Locks)
	holders := make([]strategy.Locker, m.Locks)
	for i := range names {
		names[i] = fmt.Sprintf("%s%d", prefix, i)
		holders[i] = backends[i%m.Clients].NewLocker(names[i])
	}
	if err := parallel(ctx, holders, func(l strategy.Locker) error { return l.Lock(ctx) }); err != nil {
		return r, fmt.Errorf("take the locks: %w", err)
	}
	held, err := srv.memory(ctx)
	if err != nil {
		return r, err
	}
	java, err := m.startJava(ctx, names)
	if err != nil {
		return r, fmt.Errorf("redisson waiters: %w", err)
	}
	if java != nil {
		defer java.close()
		r.JavaNames, r.JavaThreads = len(java.peers), java.threads
	}

	// Waiters: each lock's waiters on the clients after its holder's.
	var done sync.WaitGroup
	var acquired atomic.Int64
	settle0, stopProfile, err := meter.start(ctx, "settle")
	if err != nil {
		return r, err
	}
	calls0, settleStart := settle0.calls, settle0.at
	if java != nil {
		if err := java.release(); err != nil {
			stopProfile()
			return r, err
		}
	}
	for i, name := range names {
		for w := range m.Waiters {
			l := backends[(i+1+w)%m.Clients].NewLocker(name)
			done.Add(1)
			go func() {
				defer done.Done()
				if err := l.Lock(ctx); err != nil {
					fail(err)
					return
				}
				acquired.Add(1)
				if err := l.Unlock(context.Background()); err != nil {
					fail(err)
				}
			}()
		}
	}
	err = srv.settle(ctx, calls0, clientCmds, func() bool { return m.attempted(backends) })
	if err == nil && java != nil {
		err = java.waiting(ctx, srv)
	}
	stopProfile()
	if err != nil {
		return r, err
	}
	r.SettleSeconds = time.Since(settleStart).Seconds()
	if r.Settle, err = meter.since(ctx, settle0); err != nil {
		return r, err
	}

	// Idle: every lock held, every waiter waiting.
	cmd0 := clientCmds()
	srv0, err := srv.calls(ctx)
	if err != nil {
		return r, err
	}
	idleStart := time.Now()
	if !sleepUntil(ctx, idleStart.Add(m.Idle)) {
		return r, ctx.Err()
	}
	srv1, err := srv.calls(ctx)
	if err != nil {
		return r, err
	}
	idle := time.Since(idleStart).Seconds()
	r.IdleClientCmdsPerSec = float64(clientCmds()-cmd0+srv1.Sub(srv0).PubSub()) / idle
	r.IdleServerCmdsPerSec = float64(srv1.Sub(srv0).Total()) / idle
	info, err := srv.info(ctx, "clients", "stats")
	if err != nil {
		return r, err
	}
	r.Channels = int64(info["pubsub_channels"] + info["pubsubshard_channels"])
	r.Connections = int64(info["connected_clients"])
	r.Subscriptions, err = srv.subscriptions(ctx, prefix)
	if err != nil {
		return r, err
	}
	mem1, err := srv.memory(ctx)
	if err != nil {
		return r, err
	}
	r.ServerMemMiB = (mem1.server - mem0.server) / (1 << 20)
	r.GoHeapMiB = (mem1.heap - mem0.heap) / (1 << 20)
	r.ServerBytesPerLock, r.GoBytesPerLock = (held.server-mem0.server)/float64(m.Locks), (held.heap-mem0.heap)/float64(m.Locks)
	if n := float64(m.Locks * m.Waiters); n > 0 {
		r.ServerBytesPerWaiter, r.GoBytesPerWaiter = (mem1.server-held.server)/n, (mem1.heap-held.heap)/n
		r.GoStackBytesPerWaiter = (mem1.stack - held.stack) / n
	}
	r.Goroutines = runtime.NumGoroutine()

	// Drain: release every lock; each waiter takes and releases it once.
	cmd0 = clientCmds()
	drain0, stopProfile, err := meter.start(ctx, "drain")
	if err != nil {
		return r, err
	}
	drainStart := drain0.at
	if err := parallel(ctx, holders, func(l strategy.Locker) error { return l.Unlock(context.Background()) }); err != nil {
		if t := m.Tally; t != nil && t.Lost.Load() > 0 {
			err = fmt.Errorf("%w (%d holds lost, first: %v; %d renewals failed, first: %v)", err, t.Lost.Load(), *t.FirstLost.Load(), t.RenewalsFailed.Load(), errOf(t.FirstRenewalFailure.Load()))
		}
		return r, fmt.Errorf("release the locks: %w", err)
	}
	done.Wait()
	if java != nil {
		if r.JavaAcquired, err = java.finish(ctx); err != nil {
			fail(err)
		}
	}
	r.DrainSeconds = time.Since(drainStart).Seconds()
	stopProfile()
	if r.Drain, err = meter.since(ctx, drain0); err != nil {
		return r, err
	}
	srv1 = r.Drain.ServerCalls
	r.Acquired = acquired.Load()
	r.Published = srv1["publish"] + srv1["spublish"]
	n := float64(acquired.Load() + int64(m.Locks))
	r.DrainClientCmdsPer = float64(clientCmds()-cmd0+srv1.PubSub()) / n
	r.DrainServerCmdsPer = float64(srv1.Total()) / n
	r.ChannelsPerSubscribe = ratio(float64(r.Subscriptions), float64(r.Settle.ServerCalls["subscribe"]+r.Settle.ServerCalls["ssubscribe"]))
	r.WokenPerMessage = ratio(float64(r.Drain.Woken), float64(r.Published))
	r.AttemptsPerAcquisition = ratio(float64(r.Settle.Attempts+r.Drain.Attempts), float64(r.Acquired))
	r.Errors = errs.Load()
	if m.Tally != nil {
		r.Replacements = m.Tally.Replaced.Load()
	}
	if p := firstErr.Load(); p != nil {
		r.FirstError = (*p).Error()
	}
	if t := m.Tally; t != nil && t.FirstReplaced.Load() != nil {
		r.FirstReplacement = fmt.Sprint(*t.FirstReplaced.Load())
	}
	if len(m.Cluster) > 0 {
		if r.Masters, err = masterCosts(ctx, m.Cluster, srv, names, r.Settle, r.Drain); err != nil {
			return r, err
		}
	}
	return r, nil
}

// parallel runs f on every locker with 64 workers and returns the first error.
func parallel(ctx context.Context, ls []strategy.Locker, f func(strategy.Locker) error) error {
	var wg sync.WaitGroup
	var mu sync.Mutex
	var first error
	work := make(chan strategy.Locker)
	for range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for l := range work {
				if err := f(l); err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
				}
			}
		}()
	}
	for _, l := range ls {
		select {
		case work <- l:
		case <-ctx.Done():
		}
	}
	close(work)
	wg.Wait()
	if first != nil {
		return first
	}
	return ctx.Err()
}
