package fleet

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/relock-go/relock/test/proof/history"
	"github.com/relock-go/relock/test/proof/nemesis"
	"github.com/relock-go/relock/test/proof/store"
)

// Result is what a run did, for the run's caller; the run directory holds
// the rest (histories, manifest, logs).
type Result struct {
	Dir  string
	Seed int64
	// Faults counts the faults injected, by kind.
	Faults map[string]int
	// Processes names every process started, killed ones included.
	Processes []string
	Started   time.Time
	Ended     time.Time
}

// Run runs a fleet as cfg says: it starts the lock services and the
// processes, lets them work for cfg.Warmup, injects faults for
// cfg.Duration (and until every kind was injected once), stops the
// processes, reads every register once more, writes the manifest, and
// lists what the lock services still hold (LeftoversFile). The run
// directory can then be checked (package check). A run ended early by ctx
// still stops its processes and writes its manifest.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	sched, err := nemesis.New(cfg.Seed, cfg.Faults, cfg.Lease)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(cfg.Dir, "logs"), 0o755); err != nil {
		return nil, err
	}
	f := &fleet{cfg: &cfg, count: map[string]int{}, epochs: map[string]int64{}, nodes: map[string][]string{}}
	if err := f.build(); err != nil {
		return nil, err
	}
	cfg.logf("seed %d, run directory %s", cfg.Seed, cfg.Dir)
	if f.svc, err = startServices(cfg.Namespaces, slices.Contains(cfg.Workloads, store.RedLock)); err != nil {
		return nil, err
	}
	defer f.svc.close()
	for ns := range f.svc.sentinels {
		if f.nodes[ns], err = f.svc.nodes(ctx, ns); err != nil {
			return nil, err
		}
	}
	if f.svc.cluster != nil {
		f.nodes[store.Cluster] = f.svc.cluster.Addrs()
	}
	if f.hist, err = history.Create(filepath.Join(cfg.Dir, "nemesis.jsonl"), "nemesis", ""); err != nil {
		return nil, err
	}
	defer f.hist.Close()

	res := &Result{Dir: cfg.Dir, Seed: cfg.Seed, Faults: map[string]int{}, Started: time.Now()}
	runErr := f.work(ctx, sched, res)
	stopErr := f.stopAll()
	res.Ended = time.Now()
	for _, p := range f.procs {
		res.Processes = append(res.Processes, p.name)
	}
	finalErr := f.finalReads(cfg.Dir)
	manifestErr := history.WriteManifest(cfg.Dir, f.manifest(res))
	var leftErr error
	if ctx.Err() == nil {
		lctx, cancel := context.WithTimeout(ctx, f.leftoverWait()+time.Minute)
		leftErr = f.leftovers(lctx)
		cancel()
	}
	return res, errors.Join(runErr, stopErr, finalErr, manifestErr, leftErr)
}

// build makes the Go worker, and the Java worker's classes when the run
// has Java processes.
func (f *fleet) build() error {
	var err error
	if f.root, err = ModuleRoot(); err != nil {
		return err
	}
	if f.workerBin, err = buildWorker(f.root, f.cfg.Dir); err != nil {
		return err
	}
	if f.cfg.Java == 0 {
		return nil
	}
	if f.jar, err = JarPath(f.root, f.cfg.Jar); err != nil {
		return err
	}
	f.classes, err = javaClasses(f.root, f.jar)
	return err
}

// work starts the processes, waits out the warm-up and runs the nemesis.
func (f *fleet) work(ctx context.Context, sched *nemesis.Schedule, res *Result) error {
	if err := f.startAll(map[string]int{nemesis.Go: f.cfg.Go, nemesis.Java: f.cfg.Java}); err != nil {
		return err
	}
	f.cfg.logf("%d Go and %d Java processes ready", f.cfg.Go, f.cfg.Java)
	sleep(ctx, f.cfg.Warmup)
	end := time.Now().Add(f.cfg.Duration)
	var errs []error
	for ctx.Err() == nil && (time.Now().Before(end) || !sched.Covered()) {
		fault := sched.Next()
		res.Faults[fault.Kind]++
		// A fault the harness could not carry through (a replacement
		// process that would not start) fails the run, at its end: what
		// was recorded until then is still checked.
		err := f.inject(ctx, fault)
		if err == nil {
			err = f.freshPermits(ctx)
		}
		if err != nil {
			f.cfg.logf("%s: %v", fault, err)
			if errs = append(errs, fmt.Errorf("%s: %w", fault, err)); len(errs) >= maxFaultErrors {
				break
			}
		}
		sleep(ctx, fault.Gap)
	}
	return errors.Join(errs...)
}

// freshPermits moves the semaphores of every namespace to fresh objects,
// after each fault. A semaphore's count is the one state a single
// operation can leave wrong for good (a permit given back twice, or taken
// and never given back), and it would then overrun, or starve, through
// every later fault: with an object per fault, what a semaphore shows is
// what that fault did.
func (f *fleet) freshPermits(ctx context.Context) error {
	for _, ns := range f.cfg.Namespaces {
		for _, wl := range []string{store.Semaphore, store.PESemaphore} {
			if !slices.Contains(f.cfg.Workloads, wl) {
				continue
			}
			if err := f.nextEpoch(ctx, ns, wl); err != nil {
				return err
			}
		}
	}
	return nil
}

// maxFaultErrors is how many faults may fail before the run stops early.
const maxFaultErrors = 5

// finalReads reads every register once more, after the processes stopped,
// so that the checker sees the last write: a fenced register with token 0
// (which raises nothing), a plain one with GET; each is an operation of
// process "final" in final.jsonl.
func (f *fleet) finalReads(dir string) error {
	w, err := history.Create(filepath.Join(dir, "final.jsonl"), "final", "go")
	if err != nil {
		return err
	}
	defer w.Close()
	st := store.New(f.svc.admin, "final")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, name := range f.names() {
		var v int64
		switch name.workload {
		case store.Fenced, store.Election:
			o, err := w.Invoke(history.Event{Workload: name.workload, Name: name.object, Op: "read"})
			if err != nil {
				return err
			}
			if v, err = st.Read(ctx, name.object, 0); err != nil {
				return err
			}
			err = o.Done(history.OK, history.Event{Value: v})
			if err != nil {
				return err
			}
		case store.Plain, store.RW:
			o, err := w.Invoke(history.Event{Workload: name.workload, Name: name.object, Op: "read"})
			if err != nil {
				return err
			}
			if v, err = st.Get(ctx, name.object); err != nil {
				return err
			}
			if err := o.Done(history.OK, history.Event{Value: v}); err != nil {
				return err
			}
		}
	}
	return nil
}

// object is one name the run used.
type object struct {
	namespace, workload, object string
}

// names returns every object the run used: each workload of each
// namespace at each of its epochs, and each process's warm-up objects.
func (f *fleet) names() []object {
	var out []object
	for _, ns := range f.cfg.Namespaces {
		for _, wl := range f.cfg.Workloads {
			for e := int64(0); e <= f.epochs[ns+"/"+wl]; e++ {
				out = append(out, object{ns, wl, store.Object(ns, wl, e)})
			}
			for _, p := range f.procs {
				out = append(out, object{ns, wl, store.Warmup(ns, wl, p.name)})
			}
		}
	}
	return out
}

// manifest describes the run's names for the checker.
func (f *fleet) manifest(res *Result) history.Manifest {
	// The registers live on the resource, which no fault touches: no fault
	// loses their writes. Which faults lose the locks' is the history
	// package's default.
	m := history.Manifest{Started: res.Started, Ended: res.Ended, Seed: res.Seed, Names: map[string]history.NameSpec{},
		LosesData: []string{}}
	for _, n := range f.names() {
		spec := history.NameSpec{Workload: n.workload, LeaseMS: f.cfg.Lease.Milliseconds(),
			WaitMS: f.cfg.Wait.Milliseconds(), Redis: n.namespace}
		if n.namespace != "single" {
			// Redisson waits for the replicas it knows of after every lock
			// script on Sentinel (slavesSyncTimeout), whether or not it
			// checks the outcome; relock with WithReplicaAck (ack).
			spec.AckMS = f.cfg.AckTimeout.Milliseconds()
		}
		switch n.workload {
		case store.Semaphore:
			spec.Permits = f.cfg.Permits
		case store.PESemaphore:
			spec.Permits, spec.LeaseMS = f.cfg.Permits, f.cfg.PermitLease.Milliseconds()
		case store.Latch:
			spec.Permits = store.LatchCount
		case store.RedLock:
			spec.Redis = store.RedLockService
		case store.Rate:
			spec.Permits, spec.IntervalMS = store.RateLimit, store.RateInterval.Milliseconds()
			spec.WaitMS = spec.IntervalMS // TryWait's
		}
		m.Names[n.object] = spec
	}
	return m
}

// String sums a result up in a line.
func (r *Result) String() string {
	kinds := make([]string, 0, len(r.Faults))
	for k, n := range r.Faults {
		kinds = append(kinds, fmt.Sprintf("%s %d", k, n))
	}
	slices.Sort(kinds)
	return fmt.Sprintf("%v, %d processes, faults: %s", r.Ended.Sub(r.Started).Round(time.Second),
		len(r.Processes), strings.Join(kinds, ", "))
}
