package chaos

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/rlock"
	"github.com/relock-go/relock/test/faultproxy"
	"github.com/relock-go/relock/test/testkit"
)

// Config describes a Run: Clients rlock Clients, each behind its own
// fault-injecting proxy, with WorkersPerClient goroutines each, every
// goroutine an owner (FencedMutex) of one of Names locks. Zero fields take
// the defaults noted.
type Config struct {
	// Redis is the redis-server's host:port. Required.
	Redis string
	// Clients is the number of rlock Clients, each with its own go-redis
	// client and proxy (default 4).
	Clients int
	// WorkersPerClient is the number of owners per Client (default 3).
	WorkersPerClient int
	// Names is the number of lock names the owners share out (default 2).
	Names int
	// Lease is the watchdog timeout of every Client (default 600ms); the
	// faults are scaled to it.
	Lease time.Duration
	// Steps is the number of guarded steps of a critical section (default
	// 3), run back to back.
	Steps int
	// LongEvery makes about one section in LongEvery a long one (default
	// 100): 8 steps a sixth of a lease apart, so that it needs renewals
	// and faults catch holders mid-section. Negative: none.
	LongEvery int
	// Acquisitions stops the run once this many critical sections are
	// filed; 0 leaves it to Duration.
	Acquisitions int
	// Duration stops the run after this long (default 30s).
	Duration time.Duration
	// Faults switches faults on and off throughout the run.
	Faults bool
	// Seed seeds the fault schedule (0: random).
	Seed uint64
	// Logf, when set, receives a progress line every ProgressEvery.
	Logf func(format string, args ...any)
	// ProgressEvery is the period of progress lines (default 10s).
	ProgressEvery time.Duration
}

func (c *Config) defaults() error {
	if c.Redis == "" {
		return errors.New("chaos: Config.Redis is required")
	}
	def := func(p *int, v int) {
		if *p <= 0 {
			*p = v
		}
	}
	def(&c.Clients, 4)
	def(&c.WorkersPerClient, 3)
	def(&c.Names, 2)
	def(&c.Steps, 3)
	if c.LongEvery == 0 {
		c.LongEvery = 100
	}
	if c.Lease <= 0 {
		c.Lease = 600 * time.Millisecond
	}
	if c.Duration <= 0 {
		c.Duration = 30 * time.Second
	}
	if c.ProgressEvery <= 0 {
		c.ProgressEvery = 10 * time.Second
	}
	if c.Seed == 0 {
		c.Seed = rand.Uint64()
	}
	return nil
}

// Result is the outcome of a Run.
type Result struct {
	Report
	// Elapsed is how long the workload ran.
	Elapsed time.Duration
	// Faults counts the faults injected, by kind.
	Faults map[string]int
	// LockErrors counts Lock calls that failed (Redis unreachable, a
	// bounded wait that ended); the owner then tried again.
	LockErrors int
	// UnlockRetries counts Unlock calls that failed and were repeated.
	UnlockRetries int
	// Seed is the fault schedule's seed.
	Seed uint64
}

// Acquisitions is the number of critical sections filed.
func (r Result) Acquisitions() int { return r.Sections }

// node is one Client with its own connection path to Redis.
type node struct {
	proxy *faultproxy.Proxy
	rdb   *redis.Client
	locks *rlock.Client
}

// Run drives the workload that cfg describes until cfg.Acquisitions
// sections are filed, cfg.Duration passes or ctx ends, then checks the
// history. It returns an error only when the workload could not be set up.
func Run(ctx context.Context, cfg Config) (Result, error) {
	if err := cfg.defaults(); err != nil {
		return Result{}, err
	}
	nodes, err := startNodes(cfg)
	if err != nil {
		return Result{}, err
	}
	admin := redis.NewClient(&redis.Options{Addr: cfg.Redis})
	defer admin.Close()

	runCtx, stop := context.WithTimeout(ctx, cfg.Duration)
	defer stop()
	hist := &History{}
	stores := make([]*Store, cfg.Names)
	for i := range stores {
		stores[i] = &Store{}
	}
	w := &workers{cfg: cfg, hist: hist, stop: stop}

	var faultsDone chan map[string]int
	if cfg.Faults {
		faultsDone = make(chan map[string]int, 1)
		f := &faulter{cfg: cfg, nodes: nodes, admin: admin, rng: rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x9e3779b97f4a7c15))}
		go func() { faultsDone <- f.run(runCtx) }()
	}
	progressDone := make(chan struct{})
	go func() {
		defer close(progressDone)
		w.progress(runCtx, hist)
	}()

	start := time.Now()
	var wg sync.WaitGroup
	for i, n := range nodes {
		for j := range cfg.WorkersPerClient {
			k := i*cfg.WorkersPerClient + j
			m := n.locks.NewFencedMutex(fmt.Sprintf("chaos:%d", k%cfg.Names))
			wg.Add(1)
			go func() {
				defer wg.Done()
				w.run(runCtx, m, stores[k%cfg.Names])
			}()
		}
	}

	res := Result{Seed: cfg.Seed}
	if faultsDone != nil {
		res.Faults = <-faultsDone // returns when runCtx ends, faults cleared
	}
	wg.Wait()
	res.Elapsed = time.Since(start)
	<-progressDone
	for _, n := range nodes {
		n.close()
	}
	res.Report = hist.Check()
	res.LockErrors = int(w.lockErrors.Load())
	res.UnlockRetries = int(w.unlockRetries.Load())
	return res, nil
}

// startNodes starts every Client behind its own proxy.
func startNodes(cfg Config) ([]*node, error) {
	var nodes []*node
	for range cfg.Clients {
		p, err := faultproxy.Start(cfg.Redis)
		if err != nil {
			for _, n := range nodes {
				n.close()
			}
			return nil, err
		}
		// Timeouts scaled to the lease, so that a command lost in a fault
		// fails (and go-redis retries it) well within a lease.
		timeout := cfg.Lease / 2
		rdb := redis.NewClient(&redis.Options{
			Addr:         p.Addr(),
			DialTimeout:  timeout,
			ReadTimeout:  timeout,
			WriteTimeout: timeout,
		})
		locks, err := rlock.New(rdb, rlock.WithWatchdogTimeout(cfg.Lease), rlock.WithHealthCheck(cfg.Lease/3))
		if err != nil {
			_ = rdb.Close()
			_ = p.Close()
			return nil, err
		}
		nodes = append(nodes, &node{proxy: p, rdb: rdb, locks: locks})
	}
	return nodes, nil
}

func (n *node) close() {
	_ = n.locks.Close()
	_ = n.rdb.Close()
	_ = n.proxy.Close()
}

// longSteps is the number of steps of a long section.
const longSteps = 8

// workers holds what the owner goroutines of a Run share.
type workers struct {
	cfg  Config
	hist *History
	stop context.CancelFunc

	filed         atomic.Int64
	lockErrors    atomic.Int64
	unlockRetries atomic.Int64
}

// run is one owner's loop: lock, work in guarded steps, unlock, again.
func (w *workers) run(ctx context.Context, m *rlock.FencedMutex, store *Store) {
	for ctx.Err() == nil {
		// A bounded Lock, as a careful caller would: Redis may be out of
		// reach, and the owner retries.
		lctx, cancel := context.WithTimeout(ctx, 10*w.cfg.Lease)
		token, err := m.Lock(lctx)
		cancel()
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, rlock.ErrClosed) {
				return
			}
			w.lockErrors.Add(1)
			testkit.Pause(ctx, 10*time.Millisecond)
			continue
		}
		x := w.hist.Begin(m.Name(), m.Owner(), token, m.Lost(), store)
		steps, gap := w.cfg.Steps, time.Duration(0)
		if w.cfg.LongEvery > 0 && rand.IntN(w.cfg.LongEvery) == 0 {
			steps, gap = longSteps, w.cfg.Lease/6
		}
		for range steps {
			if !x.Step() {
				break
			}
			if gap > 0 {
				testkit.Pause(ctx, gap) // the work itself
			} else {
				runtime.Gosched()
			}
		}
		x.Stop()
		x.Finish(w.unlock(m))
		if n := w.filed.Add(1); w.cfg.Acquisitions > 0 && n >= int64(w.cfg.Acquisitions) {
			w.stop()
		}
	}
}

// unlock releases m, repeating a failed Unlock until it gets an answer
// (released, or not held) or a few leases pass: a hold whose Unlock
// failed stays renewed, so giving up early would keep the lock forever.
func (w *workers) unlock(m *rlock.FencedMutex) error {
	patience := time.Now().Add(10 * w.cfg.Lease)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 2*w.cfg.Lease)
		err := m.Unlock(ctx)
		cancel()
		if err == nil || errors.Is(err, rlock.ErrNotHeld) || errors.Is(err, rlock.ErrClosed) || time.Now().After(patience) {
			return err
		}
		w.unlockRetries.Add(1)
		time.Sleep(10 * time.Millisecond)
	}
}

// progress logs the run's figures every ProgressEvery until ctx ends.
func (w *workers) progress(ctx context.Context, hist *History) {
	if w.cfg.Logf == nil {
		return
	}
	t := time.NewTicker(w.cfg.ProgressEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			r := hist.Check()
			w.cfg.Logf("acquisitions %d, lost %d, lock errors %d, violations %d",
				r.Sections, r.Lost, w.lockErrors.Load(), r.Violations())
		}
	}
}
