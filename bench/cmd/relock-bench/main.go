// Command relock-bench compares relock's pub/sub waiting with spinning,
// fair mode and the Go peers (redsync, redislock) on one Redis server, in
// one run. Its scenarios (-scenarios) are uncontended (latency on a free
// lock), contention (one hot lock), readwrite (90% reads and 10% writes on
// one hot lock, with RWMutex and then with Mutex, and the ratio of their
// throughputs), many (many locks with waiters) and watchdog (renewing many
// held locks); cluster then runs many contended locks on a Redis Cluster
// with classic and with sharded pub/sub, and counts the release messages
// each master handles; scale runs many locks with waiters at several
// counts, with default options, and tells where the settle and the drain
// time went; cluster-scale (only when asked: minutes, and Java) runs that
// on Clusters of 1 and 3 masters with Redisson waiting beside. It prints a
// table and a check of the performance targets, and writes results.json,
// the table and PNG/SVG plots into -out; -compare plots the scale runs of
// earlier results side by side.
//
// It starts its own redis-server on a free loopback port unless REDIS_ADDR
// names a server (which must be one it may write bench:* keys to), and for
// the cluster scenario its own 3-master Redis Cluster unless
// REDIS_CLUSTER_ADDRS names seed nodes of one.
//
//	go run ./cmd/relock-bench            # default run, under 3 minutes
//	go run ./cmd/relock-bench -quick     # smoke run, about 25 seconds
//	go run ./cmd/relock-bench -scenarios contention -strategies relock,redsync -goroutines 64
//	go run ./cmd/relock-bench -scenarios readwrite -readwrite-goroutines 16,64
//	go run ./cmd/relock-bench -scenarios scale,cluster-scale -scale-locks 10000,30000,100000 -cluster-scale-locks 100000   # make bench SCALE=100k
//	go run ./cmd/relock-bench -compare before=old/results.json,after=out/results.json
package main

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	_ "net/http/pprof"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/relock-go/relock/bench/internal/harness"
	"github.com/relock-go/relock/bench/internal/strategy"
)

func main() {
	cfg, err := parseFlags(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "relock-bench:", err)
		os.Exit(2)
	}
	if cfg.compare != "" {
		if err := compare(cfg.compare, cfg.out); err != nil {
			fmt.Fprintln(os.Stderr, "relock-bench:", err)
			os.Exit(1)
		}
		return
	}
	if cfg.debugAddr != "" {
		// net/http/pprof's handlers, for a look inside a long run.
		go func() {
			fmt.Fprintln(os.Stderr, "relock-bench: debug server:", http.ListenAndServe(cfg.debugAddr, nil))
		}()
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, cfg); err != nil {
		fmt.Fprintln(os.Stderr, "relock-bench:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, cfg config) error {
	addr, stop, err := harness.Redis()
	if err != nil {
		return err
	}
	defer stop()
	rep, err := cfg.bench(ctx, addr, os.Stderr)
	if err != nil {
		return err
	}
	if err := rep.WriteTable(os.Stdout); err != nil {
		return err
	}
	return cfg.write(rep)
}

// config is the run's settings, from the flags.
type config struct {
	scenarios   map[string]bool
	strategies  []strategy.Strategy
	manyNames   []string
	goroutines  []int
	clients     int
	hold        time.Duration
	holds       []time.Duration // the holds scenario's
	holdsG      int
	duration    time.Duration
	warmup      time.Duration
	uncontended time.Duration
	locks       int
	waiters     int
	idle        time.Duration
	scaleLocks  []int
	wdLocks     int
	wdTimeout   time.Duration
	wdPeriods   int
	rw          readWriteConfig
	cluster     clusterConfig
	clScale     clusterScaleConfig
	out         string
	profile     string
	debugAddr   string
	traceEvery  time.Duration
	compare     string
}

// readWriteConfig is the readwrite scenario's settings; it shares -clients,
// -hold, -duration and -warmup with the contention scenario.
type readWriteConfig struct {
	goroutines []int
	readShare  float64
}

// clusterConfig is the cluster scenario's settings.
type clusterConfig struct {
	masters int
	locks   int
	waiters int
	hold    time.Duration
}

// clusterScaleConfig is the cluster-scale scenario's settings: the scale
// scenario on Redis Clusters of each masters count, with sharded pub/sub,
// and Redisson's threads among the waiters of javaNames locks.
type clusterScaleConfig struct {
	masters     []int
	locks       []int
	javaNames   int
	javaThreads int
}

// scenarioNames lists the scenarios in the order they run; all but
// cluster-scale (minutes, and Java) run by default.
var scenarioNames = []string{"uncontended", "contention", "holds", "readwrite", "many", "scale", "watchdog", "cluster", "cluster-scale"}

func parseFlags(args []string) (config, error) {
	fs := flag.NewFlagSet("relock-bench", flag.ContinueOnError)
	quick := fs.Bool("quick", false, "smoke run of about 25 s: G=8,64, readwrite G=64, short runs, 1 000 locks, 100 cluster locks (explicit flags still win)")
	scenarios := fs.String("scenarios", strings.Join(scenarioNames[:len(scenarioNames)-1], ","), "scenarios to run: "+strings.Join(scenarioNames, ","))
	strategies := fs.String("strategies", strings.Join(strategy.Names(strategy.All()), ","), "strategies of the uncontended and contention scenarios")
	many := fs.String("many-strategies", "relock", "strategies of the many-locks scenario, e.g. relock,relock-fair (fair and polling ones load Redis heavily there and take minutes at 10 000 locks)")
	goroutines := fs.String("goroutines", "1,8,64,256", "goroutine counts G of the contention scenario")
	clients := fs.Int("clients", 4, "Clients K (go-redis clients, as separate processes) the goroutines are spread over")
	hold := fs.Duration("hold", time.Millisecond, "critical section of the contention scenario")
	duration := fs.Duration("duration", 2500*time.Millisecond, "measured time of each contention run")
	warmup := fs.Duration("warmup", 250*time.Millisecond, "unmeasured start of each contention run")
	uncontended := fs.Duration("uncontended", 8*time.Second, "length of the uncontended scenario: cycles of one Lock+Unlock of every strategy, in random order")
	holds := fs.String("holds", "100us,10ms", "critical sections of the holds scenario: the contention scenario again, at -holds-goroutines")
	holdsG := fs.Int("holds-goroutines", 64, "goroutine count G of the holds scenario")
	rwGoroutines := fs.String("readwrite-goroutines", "16,64", "goroutine counts G of the readwrite scenario (each runs RWMutex, then Mutex, for -duration)")
	rwReads := fs.Float64("readwrite-reads", 0.9, "share of reads in the readwrite scenario's operations, 0 to 1")
	locks := fs.Int("locks", 10000, "locks of the many-locks scenario")
	waiters := fs.Int("waiters", 3, "waiters per lock in the many-locks scenario")
	idle := fs.Duration("idle", 2*time.Second, "how long the many-locks and scale waiters are watched")
	scaleLocks := fs.String("scale-locks", "1000,10000", "lock counts of the scale scenario (100000 takes about 3 minutes more): relock with default options, -waiters waiters per lock over -clients Clients")
	wdLocks := fs.Int("watchdog-locks", 10000, "locks the watchdog scenario holds")
	wdTimeout := fs.Duration("watchdog-timeout", 3*time.Second, "watchdog timeout of the watchdog scenario (renewal every third)")
	wdPeriods := fs.Int("watchdog-periods", 3, "renewal periods the watchdog scenario watches")
	clMasters := fs.Int("cluster-masters", 3, "masters of the Redis Cluster the cluster scenario starts")
	clLocks := fs.Int("cluster-locks", 300, "locks of the cluster scenario, spread over the masters")
	clWaiters := fs.Int("cluster-waiters", 3, "goroutines contending for each lock of the cluster scenario, over the -clients Clients")
	clHold := fs.Duration("cluster-hold", time.Millisecond, "critical section of the cluster scenario")
	csMasters := fs.String("cluster-scale-masters", "1,3", "masters of the Redis Clusters the cluster-scale scenario starts, one after the other")
	csLocks := fs.String("cluster-scale-locks", "1000", "lock counts of the cluster-scale scenario (the scale scenario on a Cluster, sharded pub/sub)")
	javaNames := fs.Int("java-names", 3, "locks of the cluster-scale scenario that Redisson's threads also wait on (0: none; needs java and the Redisson peer's jar, RELOCK_REDISSON_PEER)")
	javaThreads := fs.Int("java-threads", 2, "Redisson threads waiting on each of -java-names locks")
	out := fs.String("out", "out", "directory for results.json, results.txt and the plots")
	compareFlag := fs.String("compare", "", "run nothing: plot the scale runs of earlier results, LABEL=results.json,LABEL=results.json, into -out/scale-compare.png")
	traceEvery := fs.Duration("trace", 0, "print the progress of each scale run at this interval (5s): events, server commands, CPU")
	debugAddr := fs.String("debug-addr", "", "address to serve net/http/pprof on during the run (localhost:6060)")
	profile := fs.String("profile", "", "directory for CPU profiles of each scale run's settle and drain (scale-N-settle.pprof, scale-N-drain.pprof)")
	if err := fs.Parse(args); err != nil {
		return config{}, err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if *quick {
		for name, v := range map[string]string{"goroutines": "8,64", "readwrite-goroutines": "64", "duration": "700ms", "warmup": "150ms", "uncontended": "200ms",
			"locks": "1000", "scale-locks": "1000", "idle": "500ms", "cluster-locks": "100", "cluster-scale-locks": "300", "watchdog-locks": "1000", "watchdog-timeout": "1500ms", "watchdog-periods": "2"} {
			if !set[name] {
				if err := fs.Set(name, v); err != nil {
					return config{}, err
				}
			}
		}
	}

	c := config{
		scenarios: map[string]bool{}, clients: *clients, hold: *hold, holdsG: *holdsG, duration: *duration, warmup: *warmup,
		uncontended: *uncontended, locks: *locks, waiters: *waiters, idle: *idle,
		wdLocks: *wdLocks, wdTimeout: *wdTimeout, wdPeriods: *wdPeriods, out: *out, profile: *profile, debugAddr: *debugAddr, traceEvery: *traceEvery, compare: *compareFlag,
		rw:      readWriteConfig{readShare: *rwReads},
		cluster: clusterConfig{masters: *clMasters, locks: *clLocks, waiters: *clWaiters, hold: *clHold},
		clScale: clusterScaleConfig{javaNames: *javaNames, javaThreads: *javaThreads},
	}
	for _, s := range split(*scenarios) {
		if !slices.Contains(scenarioNames, s) {
			return c, fmt.Errorf("unknown scenario %q (have %s)", s, strings.Join(scenarioNames, ", "))
		}
		c.scenarios[s] = true
	}
	var missing []string
	if c.strategies, missing = strategy.ByName(split(*strategies)); len(missing) > 0 {
		return c, fmt.Errorf("unknown strategies %v (have %s)", missing, strings.Join(strategy.Names(strategy.All()), ", "))
	}
	// A many-locks strategy that is not available (fair mode before the
	// library has it) is skipped rather than refused.
	found, _ := strategy.ByName(split(*many))
	c.manyNames = strategy.Names(found)
	var err error
	if c.goroutines, err = counts("goroutines", *goroutines); err != nil {
		return c, err
	}
	if c.rw.goroutines, err = counts("readwrite-goroutines", *rwGoroutines); err != nil {
		return c, err
	}
	if c.scaleLocks, err = counts("scale-locks", *scaleLocks); err != nil {
		return c, err
	}
	if c.clScale.masters, err = counts("cluster-scale-masters", *csMasters); err != nil {
		return c, err
	}
	if c.clScale.locks, err = counts("cluster-scale-locks", *csLocks); err != nil {
		return c, err
	}
	if c.clScale.javaNames < 0 || c.clScale.javaThreads < 1 {
		return c, fmt.Errorf("-java-names must not be negative, -java-threads must be positive")
	}
	for _, h := range split(*holds) {
		d, err := time.ParseDuration(h)
		if err != nil || d <= 0 {
			return c, fmt.Errorf("-holds: bad duration %q", h)
		}
		c.holds = append(c.holds, d)
	}
	if c.holdsG < 1 {
		return c, fmt.Errorf("-holds-goroutines must be positive")
	}
	if c.rw.readShare < 0 || c.rw.readShare > 1 {
		return c, fmt.Errorf("-readwrite-reads: %v is not between 0 and 1", c.rw.readShare)
	}
	if c.clients < 1 || c.locks < 1 || c.waiters < 0 || c.wdLocks < 1 || c.wdPeriods < 1 {
		return c, fmt.Errorf("-clients, -locks, -watchdog-locks and -watchdog-periods must be positive")
	}
	if cl := c.cluster; cl.masters < 1 || cl.locks < 1 || cl.waiters < 1 {
		return c, fmt.Errorf("-cluster-masters, -cluster-locks and -cluster-waiters must be positive")
	}
	return c, nil
}

// counts parses the comma-separated goroutine counts of flag name.
func counts(name, s string) ([]int, error) {
	var ns []int
	for _, g := range split(s) {
		n, err := strconv.Atoi(g)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("-%s: bad count %q", name, g)
		}
		ns = append(ns, n)
	}
	return ns, nil
}

func split(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
