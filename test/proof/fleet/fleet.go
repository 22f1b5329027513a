package fleet

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/relock-go/relock/test/faultproxy"
	"github.com/relock-go/relock/test/proof/history"
	"github.com/relock-go/relock/test/proof/nemesis"
	"github.com/relock-go/relock/test/proof/store"
)

// fleet is a run's processes, its lock services and the nemesis's
// history.
type fleet struct {
	cfg       *Config
	root      string // the proof module's directory
	workerBin string
	jar       string // "" without Java
	classes   string
	svc       *services
	// nodes are the data nodes of each Sentinel deployment, by namespace:
	// a process reaches each through a proxy of its own.
	nodes map[string][]string
	hist  *history.Writer // the nemesis's

	mu     sync.Mutex
	procs  []*proc          // every process started, in order
	count  map[string]int   // processes started, by side
	epochs map[string]int64 // current epoch, by namespace/workload
}

// spawn starts a new worker process of side ("go" or "java"), with its
// proxies, and returns it without waiting for it to be ready.
func (f *fleet) spawn(side string) (*proc, error) {
	f.mu.Lock()
	f.count[side]++
	p := &proc{name: fmt.Sprintf("%s-%d", side, f.count[side]), side: side}
	f.procs = append(f.procs, p)
	seed := f.cfg.Seed + int64(len(f.procs))
	f.mu.Unlock()

	var single string
	var via []string
	if f.svc.single != nil {
		px, err := faultproxy.Start(f.svc.single.Addr)
		if err != nil {
			return p, err
		}
		p.proxies = append(p.proxies, px)
		single = px.Addr()
	}
	var redlock []string
	for _, srv := range f.svc.redlock {
		px, err := faultproxy.Start(srv.Addr)
		if err != nil {
			return p, errors.Join(err, p.closeProxies())
		}
		p.proxies = append(p.proxies, px)
		redlock = append(redlock, px.Addr())
	}
	for _, ns := range f.cfg.Namespaces {
		for _, node := range f.nodes[ns] {
			px, err := faultproxy.Start(node)
			if err != nil {
				return p, errors.Join(err, p.closeProxies())
			}
			p.proxies = append(p.proxies, px)
			via = append(via, node+"="+px.Addr())
		}
	}
	args := map[string]string{
		"process":    p.name,
		"history":    filepath.Join(f.cfg.Dir, p.name+".jsonl"),
		"resource":   f.svc.resource.Addr,
		"single":     single,
		"via":        strings.Join(via, ","),
		"redlock":    strings.Join(redlock, ","),
		"namespaces": strings.Join(f.cfg.Namespaces, ","),
		"workloads":  strings.Join(f.cfg.sideWorkloads(side), ","),
		"permits":    strconv.Itoa(f.cfg.Permits),
		"long":       strconv.Itoa(f.cfg.longHolds()),
		"seed":       strconv.FormatInt(seed, 10),
	}
	durations := map[string]time.Duration{
		"lease": f.cfg.Lease, "fair-wait": f.cfg.FairWait, "permit-lease": f.cfg.PermitLease,
		"ack-timeout": f.cfg.AckTimeout, "hold": f.cfg.Hold, "think": f.cfg.Think, "wait": f.cfg.Wait,
		"warmup": warmup[side],
	}
	for ns, d := range f.svc.sentinels {
		args[ns+"-sentinels"] = strings.Join(d.SentinelAddrs(), ",")
	}
	if f.svc.cluster != nil {
		args["cluster"] = strings.Join(f.svc.cluster.Addrs(), ",")
	}
	var argv []string
	if side == nemesis.Go {
		argv = []string{f.workerBin}
		for k, d := range durations {
			args[k] = d.String()
		}
	} else {
		argv = append(javaFlags(), "-cp", f.jar+":"+f.classes, "proof.Worker")
		for k, d := range durations {
			args[k] = strconv.FormatInt(d.Milliseconds(), 10)
		}
		args["lua"] = filepath.Join(f.root, "store", "lua")
	}
	for _, k := range slices.Sorted(maps.Keys(args)) {
		if v := args[k]; v != "" {
			argv = append(argv, "-"+k, v)
		}
	}
	if err := p.launch(f.cfg.Dir, argv); err != nil {
		return p, errors.Join(err, p.closeProxies())
	}
	return p, nil
}

// warmup is how long a process of each side runs on its warm-up objects
// before it is ready: a JVM needs a while for the JIT.
var warmup = map[string]time.Duration{nemesis.Go: 500 * time.Millisecond, nemesis.Java: 2 * time.Second}

// javaFlags are the JVM's: the quick compiler alone (C1), which spares a
// third of a start's CPU and is fast enough for this work, and a small
// serial heap, so that several JVMs fit a small machine.
func javaFlags() []string {
	return []string{"java", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xmx256m", "-Xss512k"}
}

// live returns the processes of side ("" for any) that are running.
func (f *fleet) live(side string) []*proc {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []*proc
	for _, p := range f.procs {
		if (side == "" || p.side == side) && p.alive() {
			out = append(out, p)
		}
	}
	return out
}

// startAll starts the processes of each side (counts by side), waits
// until every one is warm and ready, then starts them on the run's objects
// together.
func (f *fleet) startAll(counts map[string]int) error {
	var started []*proc
	for _, side := range []string{nemesis.Go, nemesis.Java} {
		for range counts[side] {
			p, err := f.spawn(side)
			if err != nil {
				return err
			}
			started = append(started, p)
		}
	}
	for _, p := range started {
		if err := p.awaitReady(); err != nil {
			return err
		}
	}
	for _, p := range started {
		if err := p.start(); err != nil {
			return err
		}
	}
	return nil
}

// stopAll stops every process still running, all at once, and closes every
// proxy.
func (f *fleet) stopAll() error {
	f.mu.Lock()
	procs := append([]*proc(nil), f.procs...)
	f.mu.Unlock()
	errs := make([]error, len(procs))
	var wg sync.WaitGroup
	for i, p := range procs {
		if p.cmd == nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = p.stop()
		}()
	}
	wg.Wait()
	for _, p := range procs {
		errs = append(errs, p.closeProxies())
	}
	return errors.Join(errs...)
}

// nextEpoch moves workloads of namespace ns to fresh objects.
func (f *fleet) nextEpoch(ctx context.Context, ns string, workloads ...string) error {
	for _, wl := range workloads {
		e, err := store.NextEpoch(ctx, f.svc.admin, ns, wl)
		if err != nil {
			return err
		}
		f.mu.Lock()
		f.epochs[ns+"/"+wl] = e
		f.mu.Unlock()
	}
	return nil
}
