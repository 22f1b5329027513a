// Command worker is the Go process of a proof fleet: it runs the
// workloads, each in a loop of its own, on the objects of every namespace,
// with relock's locks, and records every operation in its history file
// (package history). The Java worker (../java) does the same with
// Redisson; the harness (package fleet) starts both.
//
//	worker -process go-1 -history go-1.jsonl -resource 127.0.0.1:P \
//	  -single 127.0.0.1:Q -ack-sentinels 127.0.0.1:R,... -noack-sentinels ... \
//	  -via 127.0.0.1:S=127.0.0.1:T,...
//
// Every connection to a lock service goes through a proxy of the process's
// own (package faultproxy, in the harness): -single names the single
// server's, -via those of the Sentinel deployments' data nodes, which the
// worker dials instead of the addresses the Sentinels give (the Sentinels
// themselves are reached directly).
//
// It first warms up: each loop runs for -warmup on an object of its own
// (store.Warmup), recorded like the others, so that its connections,
// subscriptions and scripts are set up before it contends with other
// processes. It then prints "ready", starts on the run's objects when it
// reads "go" on its stdin, and on SIGTERM finishes the iteration each loop
// is in, releases what it holds, and exits 0.
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/relock-go/relock/test/proof/store"
)

// config is the command line.
type config struct {
	process, history string
	resource, single string
	sentinels        map[string][]string // by namespace
	cluster          []string            // the Cluster's nodes, as it names them
	master           string
	// via maps a Sentinel deployment's data node to the proxy this
	// process reaches it through.
	via                   map[string]string
	redlock               []string // the redlock servers' proxies
	namespaces, workloads []string
	lease, fairWait       time.Duration
	permitLease           time.Duration
	permits               int
	ackTimeout            time.Duration
	hold, think, wait     time.Duration
	long                  int
	seed                  int64
	warmup                time.Duration
}

func parse(args []string) (config, error) {
	var c config
	fs := flag.NewFlagSet("worker", flag.ContinueOnError)
	fs.StringVar(&c.process, "process", "go-1", "the process's name in the history")
	fs.StringVar(&c.history, "history", "", "the history file to write (required)")
	fs.StringVar(&c.resource, "resource", "", "the resource server, host:port (required)")
	fs.StringVar(&c.single, "single", "", "the single namespace's server (its proxy), host:port")
	ackSentinels := fs.String("ack-sentinels", "", "the Sentinels of the ack namespace's deployment, host:port,...")
	cluster := fs.String("cluster", "", "the cluster namespace's Redis Cluster nodes, host:port,... (reached through -via)")
	noackSentinels := fs.String("noack-sentinels", "", "the Sentinels of the noack namespace's deployment, host:port,...")
	fs.StringVar(&c.master, "master", "mymaster", "the name the Sentinels monitor the master under")
	redlock := fs.String("redlock", "", "the proxies of the redlock workload's three servers, host:port,...")
	via := fs.String("via", "", "the proxies of the Sentinel deployments' data nodes: node=proxy,... (host:port each)")
	namespaces := fs.String("namespaces", strings.Join(store.Namespaces, ","), "the namespaces to run")
	workloads := fs.String("workloads", strings.Join(store.Workloads, ","), "the workloads to run")
	fs.DurationVar(&c.lease, "lease", 2*time.Second, "WithWatchdogTimeout: the lease of every lock")
	fs.DurationVar(&c.fairWait, "fair-wait", 5*time.Second, "WithFairWaitTimeout (the Java side's fairLockWaitTimeout)")
	fs.DurationVar(&c.permitLease, "permit-lease", 2*time.Second, "the lease of a permit-expirable semaphore's permits")
	fs.IntVar(&c.permits, "permits", 2, "the permits of each semaphore")
	fs.DurationVar(&c.ackTimeout, "ack-timeout", time.Second, "the ack namespace's WithReplicaAck timeout")
	fs.DurationVar(&c.hold, "hold", 3*time.Millisecond, "the longest pause inside a section")
	fs.IntVar(&c.long, "long", 1, "how many sections of a lock the watchdog keeps are long (0.5 to 4 leases) at once")
	fs.DurationVar(&c.think, "think", 10*time.Millisecond, "the longest pause between two iterations")
	fs.DurationVar(&c.wait, "wait", 20*time.Second, "how long an acquisition may wait")
	fs.Int64Var(&c.seed, "seed", 1, "seed of the pauses' random lengths")
	fs.DurationVar(&c.warmup, "warmup", 500*time.Millisecond, "how long the loops run on the warm-up objects")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if c.history == "" || c.resource == "" {
		return c, fmt.Errorf("-history and -resource are required")
	}
	if c.long < 0 {
		return c, fmt.Errorf("-long %d: want 0 or more", c.long)
	}
	c.namespaces, c.workloads, c.redlock = split(*namespaces), split(*workloads), split(*redlock)
	c.sentinels = map[string][]string{store.Ack: split(*ackSentinels), store.NoAck: split(*noackSentinels)}
	c.cluster = split(*cluster)
	c.via = make(map[string]string)
	for _, pair := range split(*via) {
		node, proxy, ok := strings.Cut(pair, "=")
		if !ok {
			return c, fmt.Errorf("-via %q: want node=proxy", pair)
		}
		c.via[node] = proxy
	}
	for _, ns := range c.namespaces {
		switch {
		case ns == store.Single && c.single == "":
			return c, fmt.Errorf("namespace %s needs -single", ns)
		case ns == store.Cluster:
			if len(c.cluster) == 0 {
				return c, fmt.Errorf("namespace %s needs -cluster", ns)
			}
		case ns != store.Single && len(c.sentinels[ns]) == 0:
			return c, fmt.Errorf("namespace %s needs -%s-sentinels", ns, ns)
		}
	}
	return c, nil
}

func split(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

func main() {
	c, err := parse(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "worker:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	w, err := start(c)
	if err != nil {
		fmt.Fprintln(os.Stderr, "worker:", err)
		os.Exit(1)
	}
	ls := w.loops()
	w.warmup(ctx, ls, c.warmup)
	fmt.Println("ready")
	if awaitGo(ctx, os.Stdin) {
		w.run(ctx, ls)
	}
	if err := w.close(); err != nil {
		fmt.Fprintln(os.Stderr, "worker:", err)
		os.Exit(1)
	}
}

// awaitGo waits for the line "go" on r, and reports whether it came before
// ctx ended (or r ended: the harness is gone).
func awaitGo(ctx context.Context, r io.Reader) bool {
	got := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			if sc.Text() == "go" {
				got <- true
				return
			}
		}
		got <- false
	}()
	select {
	case ok := <-got:
		return ok
	case <-ctx.Done():
		return false
	}
}
