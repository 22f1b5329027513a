package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/bench/internal/harness"
	"github.com/relock-go/relock/bench/internal/redisson"
	"github.com/relock-go/relock/bench/internal/report"
	"github.com/relock-go/relock/bench/internal/strategy"
	"github.com/relock-go/relock/rlock"
)

// bench runs the selected scenarios against the server at addr, printing a
// progress line per step to progress.
func (c config) bench(ctx context.Context, addr string, progress io.Writer) (*report.Report, error) {
	admin := redis.NewClient(&redis.Options{Addr: addr})
	defer admin.Close()
	rep := &report.Report{Started: time.Now()}
	var err error
	if rep.Machine, err = machine(ctx, admin, addr); err != nil {
		return nil, err
	}
	rep.Config = report.Config{
		Strategies: strategy.Names(c.strategies), Goroutines: c.goroutines, Clients: c.clients,
		HoldMs: float64(c.hold) / float64(time.Millisecond), RunSeconds: c.duration.Seconds(), WarmupSeconds: c.warmup.Seconds(),
	}

	steps := c.steps()
	step := 0
	show := func(format string, args ...any) {
		step++
		el := time.Since(rep.Started).Round(time.Second)
		fmt.Fprintf(progress, "[%2d/%d %6s] %s\n", step, steps, el, fmt.Sprintf(format, args...))
	}

	show("PING round trips")
	if rep.Ping, err = harness.PingRTT(ctx, admin, 2000); err != nil {
		return nil, err
	}
	rtt := rep.RTT()
	if rep.IdlePing, err = harness.PingAfterIdle(ctx, admin, 500, c.hold); err != nil {
		return nil, err
	}

	if c.scenarios["uncontended"] {
		show("uncontended  %d strategies, taking turns", len(c.strategies))
		if rep.Uncontended, err = harness.Uncontended(ctx, addr, c.strategies, c.uncontended); err != nil {
			return nil, err
		}
	}
	if c.scenarios["contention"] {
		for _, g := range c.goroutines {
			for _, s := range c.strategies {
				show("contention   %-16s G=%-3d K=%d", s.Name, g, min(g, c.clients))
				x, err := harness.Contention{
					Addr: addr, Strategy: s, Goroutines: g, Clients: c.clients, Hold: c.hold,
					Warmup: c.warmup, Duration: c.duration, RTT: rtt,
				}.Run(ctx, admin)
				if err != nil {
					return nil, fmt.Errorf("contention %s G=%d: %w", s.Name, g, err)
				}
				rep.Contention = append(rep.Contention, x)
			}
		}
	}
	if c.scenarios["holds"] {
		for _, h := range c.holds {
			for _, s := range c.strategies {
				show("holds        %-16s hold %v G=%d K=%d", s.Name, h, c.holdsG, min(c.holdsG, c.clients))
				x, err := harness.Contention{
					Addr: addr, Strategy: s, Goroutines: c.holdsG, Clients: c.clients, Hold: h,
					Warmup: c.warmup, Duration: c.duration, RTT: rtt,
				}.Run(ctx, admin)
				if err != nil {
					return nil, fmt.Errorf("holds %s hold %v: %w", s.Name, h, err)
				}
				rep.Holds = append(rep.Holds, x)
			}
		}
	}
	if c.scenarios["readwrite"] {
		for _, g := range c.rw.goroutines {
			show("readwrite    RWMutex, Mutex   G=%-3d K=%d, %.0f%% reads", g, min(g, c.clients), 100*c.rw.readShare)
			x, err := harness.ReadWrite{
				Addr: addr, Goroutines: g, Clients: c.clients, Hold: c.hold, ReadShare: c.rw.readShare,
				Warmup: c.warmup, Duration: c.duration,
			}.Run(ctx)
			if err != nil {
				return nil, fmt.Errorf("readwrite G=%d: %w", g, err)
			}
			rep.ReadWrite = append(rep.ReadWrite, x)
		}
	}
	if c.scenarios["many"] {
		rep.Config.ManyLocks, rep.Config.ManyWaiters = c.locks, c.waiters
		many, _ := strategy.ByName(c.manyNames)
		for _, s := range many {
			show("many locks   %-16s %d locks × %d waiters", s.Name, c.locks, c.waiters)
			x, err := harness.ManyLocks{Addr: addr, Strategy: s, Locks: c.locks, Waiters: c.waiters, Clients: c.clients, Idle: c.idle}.Run(ctx, admin)
			if err != nil {
				return nil, fmt.Errorf("many locks %s: %w", s.Name, err)
			}
			rep.ManyLocks = append(rep.ManyLocks, x)
		}
	}
	if c.scenarios["scale"] {
		rep.Config.ScaleWaiters, rep.Config.IdleSeconds = c.waiters, c.idle.Seconds()
		if c.profile != "" {
			if err := os.MkdirAll(c.profile, 0o755); err != nil {
				return nil, err
			}
		}
		for _, n := range c.scaleLocks {
			show("scale        %d locks × %d waiters, default options", n, c.waiters)
			var tally strategy.Tally
			profile := ""
			if c.profile != "" {
				profile = filepath.Join(c.profile, fmt.Sprintf("scale-%d", n))
			}
			x, err := harness.ManyLocks{Addr: addr, Strategy: strategy.RelockCounted(&tally), Locks: n, Waiters: c.waiters, Clients: c.clients, Idle: c.idle,
				Tally: &tally, Profile: profile, Trace: progress, TraceEvery: c.traceEvery}.Run(ctx, admin)
			if err != nil {
				return nil, fmt.Errorf("scale %d locks: %w", n, err)
			}
			rep.Scale = append(rep.Scale, x)
		}
	}
	if c.scenarios["watchdog"] {
		rep.Config.WatchdogLocks, rep.Config.WatchdogTimeout = c.wdLocks, c.wdTimeout.Seconds()
		show("watchdog     %d locks, timeout %v", c.wdLocks, c.wdTimeout)
		wd, err := harness.Watchdog{Addr: addr, Locks: c.wdLocks, Timeout: c.wdTimeout, Periods: c.wdPeriods}.Run(ctx, admin)
		if err != nil {
			return nil, fmt.Errorf("watchdog: %w", err)
		}
		rep.Watchdog = &wd
	}
	if c.scenarios["cluster"] {
		if err := c.runCluster(ctx, rep, show); err != nil {
			return nil, err
		}
	}
	if c.scenarios["cluster-scale"] {
		if err := c.runClusterScale(ctx, rep, show); err != nil {
			return nil, err
		}
	}
	rep.Seconds = time.Since(rep.Started).Seconds()
	rep.CheckTargets()
	fmt.Fprintf(progress, "done in %s\n", time.Since(rep.Started).Round(time.Second))
	return rep, nil
}

// steps counts the progress lines of the run.
func (c config) steps() int {
	n := 1
	if c.scenarios["uncontended"] {
		n += len(c.strategies)
	}
	if c.scenarios["contention"] {
		n += len(c.strategies) * len(c.goroutines)
	}
	if c.scenarios["holds"] {
		n += len(c.strategies) * len(c.holds)
	}
	if c.scenarios["readwrite"] {
		n += len(c.rw.goroutines)
	}
	if c.scenarios["many"] {
		n += len(c.manyNames)
	}
	if c.scenarios["scale"] {
		n += len(c.scaleLocks)
	}
	if c.scenarios["watchdog"] {
		n++
	}
	if c.scenarios["cluster"] {
		n += 3
	}
	if c.scenarios["cluster-scale"] {
		n += len(c.clScale.masters) * (1 + len(c.clScale.locks))
	}
	return n
}

// runCluster starts (or finds) the Redis Cluster and runs the cluster
// scenario on it with classic, then sharded pub/sub.
func (c config) runCluster(ctx context.Context, rep *report.Report, show func(string, ...any)) error {
	cl := c.cluster
	rep.Config.ClusterLocks, rep.Config.ClusterWaiters, rep.Config.ClusterHoldMs = cl.locks, cl.waiters, float64(cl.hold)/float64(time.Millisecond)
	show("cluster      start %d masters", cl.masters)
	addrs, stop, err := harness.RedisCluster(cl.masters)
	if err != nil {
		return fmt.Errorf("cluster: %w", err)
	}
	defer stop()
	for _, sharded := range []bool{false, true} {
		s := harness.ClusterLocks{
			Addrs: addrs, Sharded: sharded, Locks: cl.locks, Waiters: cl.waiters, Clients: c.clients,
			Hold: cl.hold, Warmup: c.warmup, Duration: c.duration,
		}
		mode := map[bool]string{false: "classic", true: "sharded"}[sharded]
		show("cluster      %-7s pub/sub, %d locks × %d goroutines, K=%d", mode, cl.locks, cl.waiters, c.clients)
		x, err := s.Run(ctx)
		if err != nil {
			return fmt.Errorf("cluster %s: %w", mode, err)
		}
		rep.Cluster = append(rep.Cluster, x)
	}
	return nil
}

// runClusterScale runs the scale scenario on a Redis Cluster of each
// -cluster-scale-masters count (sharded pub/sub, as Redisson's default
// there), with Redisson's threads among some locks' waiters.
func (c config) runClusterScale(ctx context.Context, rep *report.Report, show func(string, ...any)) error {
	cs := c.clScale
	java := harness.JavaWaiters{Names: cs.javaNames, Threads: cs.javaThreads}
	if java.Names > 0 {
		jar, err := redisson.Jar()
		if err != nil {
			return fmt.Errorf("cluster-scale: %w (or -java-names 0)", err)
		}
		java.Jar = jar
	}
	for _, masters := range cs.masters {
		show("cluster-scale start %d masters", masters)
		addrs, stop, err := harness.RedisCluster(masters)
		if err != nil {
			return fmt.Errorf("cluster-scale: %w", err)
		}
		for _, n := range cs.locks {
			show("cluster-scale %d masters, %d locks × %d waiters, sharded pub/sub, Redisson on %d", masters, n, c.waiters, java.Names)
			var tally strategy.Tally
			x, err := harness.ManyLocks{Cluster: addrs, Sharded: true, Strategy: strategy.RelockCounted(&tally, rlock.WithShardedPubSub(true)),
				Locks: n, Waiters: c.waiters, Clients: c.clients, Idle: c.idle, Tally: &tally, Java: java}.Run(ctx, nil)
			if err != nil {
				_ = stop()
				return fmt.Errorf("cluster-scale %d masters, %d locks: %w", masters, n, err)
			}
			rep.ClusterScale = append(rep.ClusterScale, x)
		}
		if err := stop(); err != nil {
			return err
		}
	}
	return nil
}

// write stores the JSON, the table and the plots in c.out.
func (c config) write(rep *report.Report) error {
	if err := os.MkdirAll(c.out, 0o755); err != nil {
		return err
	}
	if err := rep.WriteJSON(filepath.Join(c.out, "results.json")); err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(c.out, "results.txt"))
	if err != nil {
		return err
	}
	if err := rep.WriteTable(f); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	files, err := rep.WritePlots(c.out)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "wrote %s\n", strings.Join(append([]string{filepath.Join(c.out, "results.json"), filepath.Join(c.out, "results.txt")}, files...), ", "))
	return nil
}

// machine describes this host and the Redis server.
func machine(ctx context.Context, admin *redis.Client, addr string) (report.Machine, error) {
	m := report.Machine{GoVersion: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH, CPUs: runtime.NumCPU(), RedisAddr: addr}
	info, err := admin.Info(ctx, "server").Result()
	if err != nil {
		return m, fmt.Errorf("redis at %s: %w", addr, err)
	}
	m.RedisVersion = field(info, "redis_version:")
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		m.CPUModel = field(string(b), "model name")
		m.CPUModel = strings.TrimSpace(strings.TrimPrefix(m.CPUModel, ":"))
	}
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		kb := strings.TrimSuffix(strings.TrimSpace(strings.TrimPrefix(field(string(b), "MemTotal:"), ":")), " kB")
		if n, err := strconv.ParseFloat(kb, 64); err == nil {
			m.MemoryGiB = n / (1 << 20)
		}
	}
	return m, nil
}

// field returns the rest of the first line of text that starts with prefix.
func field(text, prefix string) string {
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), prefix); ok {
			return strings.TrimSpace(rest)
		}
	}
	return ""
}
