package harness

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/relock-go/relock/bench/internal/redisstats"
	"github.com/relock-go/relock/bench/internal/strategy"
	"github.com/relock-go/relock/rlock"
)

// ReadWrite describes a read-mostly run on one hot lock, made twice with
// the same goroutines, hold, seeds and duration: once with rlock.RWMutex
// (reads take RLock, writes Lock) and once with rlock.Mutex (every
// operation takes Lock). Goroutines goroutines are spread round-robin over
// Clients relock Clients (each its own go-redis client, as separate
// processes would be); each picks a read with probability ReadShare, holds
// the lock for Hold, releases it and goes again right away.
type ReadWrite struct {
	Addr       string
	Goroutines int
	Clients    int
	Hold       time.Duration
	// ReadShare is the probability that an operation reads, e.g. 0.9.
	ReadShare float64
	// Warmup runs before the measured Duration; it is not counted.
	Warmup   time.Duration
	Duration time.Duration
}

// ReadWriteResult compares RWMutex with Mutex on the same workload.
type ReadWriteResult struct {
	Goroutines int     `json:"goroutines"`
	Clients    int     `json:"clients"`
	HoldMs     float64 `json:"hold_ms"`
	ReadShare  float64 `json:"read_share"`
	Seconds    float64 `json:"seconds"`

	RWMutex ReadWriteKind `json:"rwmutex"`
	Mutex   ReadWriteKind `json:"mutex"`
	// Speedup is RWMutex.PerSecond / Mutex.PerSecond.
	Speedup float64 `json:"rwmutex_to_mutex_throughput"`
}

// ReadWriteKind is what one lock kind did inside the window.
type ReadWriteKind struct {
	// Lock is "RWMutex" or "Mutex".
	Lock string `json:"lock"`
	// Operations = Reads + Writes: acquisitions made inside the window.
	Operations      int64   `json:"operations"`
	PerSecond       float64 `json:"operations_per_second"`
	Reads           int64   `json:"reads"`
	Writes          int64   `json:"writes"`
	ReadsPerSecond  float64 `json:"reads_per_second"`
	WritesPerSecond float64 `json:"writes_per_second"`
	// ReadWait and WriteWait run from the Lock (RLock) call to its return;
	// they include the waits cut off by the end of the run (WaitsCut of
	// them, reads and writes together).
	ReadWait  Quantiles `json:"read_wait"`
	WriteWait Quantiles `json:"write_wait"`
	WaitsCut  int       `json:"waits_cut"`
	// MaxReaders is the most read operations inside the lock at once: 1
	// for Mutex, more when RWMutex readers overlap.
	MaxReaders    int64   `json:"max_readers_inside"`
	ClientCmdsPer float64 `json:"client_commands_per_operation"`
	// Violations counts entries that broke exclusion: a writer inside with
	// anyone else, a reader with a writer (or, on Mutex, with anyone).
	Violations int64  `json:"violations"`
	Errors     int64  `json:"errors"`
	FirstError string `json:"first_error,omitempty"`
}

// rwSeed seeds each goroutine's choice of reads and writes, with the
// goroutine's number: both kinds see the same sequence of operations.
const rwSeed = 0x5eed

// Run runs the workload with RWMutex, then with Mutex.
func (c ReadWrite) Run(ctx context.Context) (ReadWriteResult, error) {
	r := ReadWriteResult{
		Goroutines: c.Goroutines, Clients: max(1, min(c.Clients, c.Goroutines)),
		HoldMs: ms(c.Hold), ReadShare: c.ReadShare, Seconds: c.Duration.Seconds(),
	}
	var err error
	if r.RWMutex, err = c.run(ctx, "RWMutex"); err != nil {
		return r, err
	}
	if r.Mutex, err = c.run(ctx, "Mutex"); err != nil {
		return r, err
	}
	r.Speedup = ratio(r.RWMutex.PerSecond, r.Mutex.PerSecond)
	return r, nil
}

// rwOwner is one goroutine's handle: the lockers its reads and writes
// take, and whether reads share the lock.
type rwOwner struct {
	read, write strategy.Locker
	shared      bool
}

// readLocker is an RWMutex's read side as a Locker.
type readLocker struct{ rw *rlock.RWMutex }

func (l readLocker) Lock(ctx context.Context) error   { return l.rw.RLock(ctx) }
func (l readLocker) Unlock(ctx context.Context) error { return l.rw.RUnlock(ctx) }

// run runs the workload on one lock kind, "RWMutex" or "Mutex".
func (c ReadWrite) run(ctx context.Context, kind string) (ReadWriteKind, error) {
	k := max(1, min(c.Clients, c.Goroutines))
	counters := make([]*redisstats.Counter, k)
	clients := make([]*rlock.Client, k)
	for i := range k {
		rdb, counter := redisstats.NewClient(c.Addr)
		defer rdb.Close()
		cl, err := rlock.New(rdb)
		if err != nil {
			return ReadWriteKind{}, err
		}
		defer cl.Close()
		counters[i], clients[i] = counter, cl
	}
	name := fmt.Sprintf("bench:rw:%s:%d:%d", kind, c.Goroutines, time.Now().UnixNano())
	owners := make([]rwOwner, c.Goroutines)
	for g := range owners {
		cl := clients[g%k]
		if kind == "RWMutex" {
			rw := cl.NewRWMutex(name)
			owners[g] = rwOwner{read: readLocker{rw}, write: rw, shared: true}
		} else {
			m := cl.NewMutex(name)
			owners[g] = rwOwner{read: m, write: m}
		}
	}

	start := time.Now()
	from := start.Add(c.Warmup)
	to := from.Add(c.Duration)
	rec := &rwRecorder{from: from, to: to}
	runCtx, cancel := context.WithDeadline(ctx, to)
	defer cancel()
	var wg sync.WaitGroup
	for g, o := range owners {
		rng := rand.New(rand.NewPCG(rwSeed, uint64(g)))
		wg.Add(1)
		go func() {
			defer wg.Done()
			rwLoop(runCtx, rec, o, rng, c.ReadShare, c.Hold)
		}()
	}

	cmds := func() (n int64) {
		for _, ct := range counters {
			n += ct.Snapshot().Commands
		}
		return n
	}
	var cmd0, cmd1 int64
	if sleepUntil(ctx, from) {
		cmd0 = cmds()
	}
	if sleepUntil(ctx, to) {
		cmd1 = cmds()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return ReadWriteKind{}, err
	}
	return rec.result(kind, c.Duration, cmd1-cmd0), nil
}

// rwLoop is one goroutine, recorded by rec: read or write, hold, release,
// again, until ctx ends.
func rwLoop(ctx context.Context, rec *rwRecorder, o rwOwner, rng *rand.Rand, readShare float64, hold time.Duration) {
	for ctx.Err() == nil {
		read := rng.Float64() < readShare
		l := o.write
		if read {
			l = o.read
		}
		start := time.Now()
		if err := l.Lock(ctx); err != nil {
			if ctx.Err() != nil {
				rec.cutOff(read, start)
				return
			}
			rec.failed(err)
			time.Sleep(hold)
			continue
		}
		rec.enter(read, !read || !o.shared, start)
		holdFor(hold)
		rec.leave(read)
		if err := l.Unlock(context.Background()); err != nil {
			rec.failed(err)
		}
	}
}

// rwRecorder watches one hot read-write lock from inside the critical
// sections: it checks exclusion with atomic counters of the reads and
// writes inside, and records the waits of the operations granted inside
// the window [from, to).
type rwRecorder struct {
	from, to time.Time

	readers, writers atomic.Int64 // operations inside now
	maxReaders       atomic.Int64
	violations       atomic.Int64

	mu                    sync.Mutex
	reads, writes         int64
	readWaits, writeWaits []time.Duration
	cut                   int
	errors                int64
	firstError            error
}

// enter records that an operation whose Lock call started at start is
// inside: a read or a write, holding the lock exclusively or shared.
func (r *rwRecorder) enter(read, exclusive bool, start time.Time) {
	now := time.Now()
	// Each side counts itself in before it looks at the other, so of two
	// overlapping operations at least one sees the other.
	if read {
		n := r.readers.Add(1)
		if r.writers.Load() > 0 || (exclusive && n > 1) {
			r.violations.Add(1)
		}
		for m := r.maxReaders.Load(); n > m; m = r.maxReaders.Load() {
			if r.maxReaders.CompareAndSwap(m, n) {
				break
			}
		}
	} else if r.writers.Add(1) > 1 || r.readers.Load() > 0 {
		r.violations.Add(1)
	}

	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case !now.Before(r.to):
		// Granted after the run: the wait counts as cut off at its end.
		r.cutLocked(read, start)
	case !now.Before(r.from):
		if read {
			r.reads++
			r.readWaits = append(r.readWaits, now.Sub(start))
		} else {
			r.writes++
			r.writeWaits = append(r.writeWaits, now.Sub(start))
		}
	}
}

// leave records that an operation leaves the critical section and is about
// to release the lock.
func (r *rwRecorder) leave(read bool) {
	if read {
		r.readers.Add(-1)
	} else {
		r.writers.Add(-1)
	}
}

// cutOff records that a wait that started at start ended without the lock.
func (r *rwRecorder) cutOff(read bool, start time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cutLocked(read, start)
}

func (r *rwRecorder) cutLocked(read bool, start time.Time) {
	if !start.Before(r.to) {
		return
	}
	if read {
		r.readWaits = append(r.readWaits, r.to.Sub(start))
	} else {
		r.writeWaits = append(r.writeWaits, r.to.Sub(start))
	}
	r.cut++
}

// failed records an error from Lock or Unlock.
func (r *rwRecorder) failed(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errors++
	if r.firstError == nil {
		r.firstError = err
	}
}

// result summarises the window of duration d, in which the Clients sent
// cmds commands.
func (r *rwRecorder) result(kind string, d time.Duration, cmds int64) ReadWriteKind {
	r.mu.Lock()
	defer r.mu.Unlock()
	secs := d.Seconds()
	ops := r.reads + r.writes
	x := ReadWriteKind{
		Lock: kind, Operations: ops, PerSecond: float64(ops) / secs,
		Reads: r.reads, Writes: r.writes,
		ReadsPerSecond: float64(r.reads) / secs, WritesPerSecond: float64(r.writes) / secs,
		ReadWait: summarise(r.readWaits), WriteWait: summarise(r.writeWaits), WaitsCut: r.cut,
		MaxReaders:    r.maxReaders.Load(),
		ClientCmdsPer: ratio(float64(cmds), float64(ops)),
		Violations:    r.violations.Load(), Errors: r.errors,
	}
	if r.firstError != nil {
		x.FirstError = r.firstError.Error()
	}
	return x
}
