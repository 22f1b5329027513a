package main

import (
	"context"
	"errors"
	"math/rand/v2"
	"net"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/rlock"
	"github.com/relock-go/relock/test/proof/history"
	"github.com/relock-go/relock/test/proof/store"
)

// worker is the process: its history, its clients and its loops.
type worker struct {
	c        config
	hist     *history.Writer
	resource *redis.Client
	store    *store.Store
	rdbs     []*redis.Client
	locks    map[string]*rlock.Client // by namespace
	// long holds a token for each long hold in progress (loop.work):
	// -long at once, so that the process always has that many sections
	// outliving renewals, whatever the contention, and the others stay
	// short. Nil during the warm-up, which takes none.
	long    chan struct{}
	redlock []*rlock.Client      // one per redlock server
	cluster *redis.ClusterClient // the cluster namespace's
}

// timeouts of every go-redis client: a command that Redis does not answer
// (a partition) fails within a second, well inside a lease.
const (
	dialTimeout = time.Second
	ioTimeout   = time.Second
	// resourceTimeout bounds a command to the resource.
	resourceTimeout = 30 * time.Second
)

func start(c config) (*worker, error) {
	hist, err := history.Create(c.history, c.process, "go")
	if err != nil {
		return nil, err
	}
	w := &worker{c: c, hist: hist, locks: make(map[string]*rlock.Client)}
	// The resource's connections carry the process's name, so that the
	// harness sees when the last of a killed process's is gone. No fault
	// touches the resource, but a paused process wakes to replies that
	// came while it slept: its commands wait long, and are never sent
	// twice, so that an outcome recorded is the outcome of the one run
	// (a write resent after its first run was accepted would come back
	// rejected; an INCR resent would count twice).
	w.resource = redis.NewClient(&redis.Options{Addr: c.resource, ClientName: c.process,
		MaxRetries: -1, ReadTimeout: resourceTimeout, WriteTimeout: resourceTimeout})
	w.store = store.New(w.resource, c.process)
	for _, ns := range c.namespaces {
		opts := []rlock.Option{
			rlock.WithWatchdogTimeout(c.lease),
			rlock.WithFairWaitTimeout(c.fairWait),
			rlock.WithClientName(c.process),
		}
		if ns == store.Cluster {
			if err := w.startCluster(opts); err != nil {
				_ = w.close()
				return nil, err
			}
			continue
		}
		var rdb *redis.Client
		if ns == store.Single {
			rdb = redis.NewClient(&redis.Options{Addr: c.single,
				DialTimeout: dialTimeout, ReadTimeout: ioTimeout, WriteTimeout: ioTimeout})
		} else {
			rdb = redis.NewFailoverClient(&redis.FailoverOptions{MasterName: c.master, SentinelAddrs: c.sentinels[ns],
				Dialer: c.dial, DialTimeout: dialTimeout, ReadTimeout: ioTimeout, WriteTimeout: ioTimeout})
		}
		if ns == store.Ack {
			opts = append(opts, rlock.WithReplicaAck(1, c.ackTimeout))
		}
		rdb.AddHook(queuedHook{})
		w.rdbs = append(w.rdbs, rdb)
		lc, err := rlock.New(rdb, opts...)
		if err != nil {
			_ = w.close()
			return nil, err
		}
		w.locks[ns] = lc
	}
	if err := w.startRedLock(); err != nil {
		_ = w.close()
		return nil, err
	}
	return w, nil
}

// loops returns a loop for every workload of every namespace.
func (w *worker) loops() []*loop {
	var out []*loop
	for _, ns := range w.c.namespaces {
		for _, wl := range w.c.workloads {
			if wl == store.RedLock && ns != store.Single {
				continue // one redlock loop: its servers are its own, no namespace's
			}
			out = append(out, &loop{w: w, ns: ns, wl: wl, locks: w.locks[ns],
				rng: rand.New(rand.NewPCG(uint64(w.c.seed), uint64(len(out)))), epoch: -1})
		}
	}
	return out
}

// each runs fn for every loop, each in a goroutine of its own, and waits
// for all.
func each(ls []*loop, fn func(*loop)) {
	var wg sync.WaitGroup
	for _, l := range ls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			fn(l)
		}()
	}
	wg.Wait()
}

// warmup runs every loop on its warm-up object for d: the process's
// connections, subscriptions and scripts are set up before it contends
// with the others on the run's objects.
func (w *worker) warmup(ctx context.Context, ls []*loop, d time.Duration) {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	each(ls, func(l *loop) { l.warm(ctx) })
}

// run runs every loop on the run's objects until ctx ends, then waits for
// each to finish its iteration.
func (w *worker) run(ctx context.Context, ls []*loop) {
	w.long = make(chan struct{}, w.c.long)
	each(ls, func(l *loop) { l.run(ctx) })
}

// dial connects to addr, or to the proxy -via names for it.
func (c config) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	if proxy, ok := c.via[addr]; ok {
		addr = proxy
	}
	d := net.Dialer{Timeout: dialTimeout}
	return d.DialContext(ctx, network, addr)
}

func (w *worker) close() error {
	var errs []error
	for _, lc := range w.locks {
		errs = append(errs, lc.Close())
	}
	for _, lc := range w.redlock {
		errs = append(errs, lc.Close())
	}
	for _, rdb := range w.rdbs {
		errs = append(errs, rdb.Close())
	}
	if w.cluster != nil {
		errs = append(errs, w.cluster.Close())
	}
	if w.resource != nil {
		errs = append(errs, w.resource.Close())
	}
	errs = append(errs, w.hist.Close())
	return errors.Join(errs...)
}
