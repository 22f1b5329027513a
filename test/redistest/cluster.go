package redistest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// clusterSlots is the number of hash slots of a Redis Cluster.
const clusterSlots = 16384

// ClusterNodeTimeout is the cluster-node-timeout of every node a Cluster
// starts: how long a node must be unreachable before the others mark it
// failed, which a replica's election then follows.
const ClusterNodeTimeout = time.Second

// replicationArgs are the redis-server options of every node that may serve
// replicas. Replicas start their full sync at once, instead of after the
// 5 s that a master waits by default for more replicas to share a diskless
// transfer. The master pings its replicas every second, not every ten:
// until a replica's offset moves, Redis Cluster leaves it out of CLUSTER
// SLOTS. And a master stopped by Close exits at once, instead of waiting
// for lagging replicas as Redis 7 does on SIGINT.
var replicationArgs = []string{
	"--repl-diskless-sync-delay", "0",
	"--repl-ping-replica-period", "1",
	"--shutdown-on-sigint", "now",
}

// Cluster is a Redis Cluster of redis-server child processes on 127.0.0.1,
// each with its own working directory and persistence off.
//
// Every master serves an equal share of the hash slots. The nodes agree on
// their roles through the cluster bus alone, as in production: a test that
// stops a master (SHUTDOWN NOSAVE) sees its replica take over within a few
// ClusterNodeTimeouts.
type Cluster struct {
	// nodes holds the masters, in slot order, then their replicas: the
	// replicas of master i are nodes[masters+i*perMaster:][:perMaster].
	nodes     []*Server
	busPorts  []int
	masters   int
	perMaster int

	closeOnce sync.Once
	closeErr  error
}

// StartCluster starts a Redis Cluster of masters masters, each with
// replicasPerMaster replicas, on free loopback ports. It returns once every
// node reports cluster_state:ok and the same slot map, every slot served by
// the intended master, and every replica's link to its master is up.
//
// A master reports cluster_state:ok no sooner than 2 s after it starts
// (Redis's delay before a restarted master rejoins), so a cluster takes
// about that long to start.
func StartCluster(masters, replicasPerMaster int) (*Cluster, error) {
	if masters < 1 || replicasPerMaster < 0 {
		return nil, fmt.Errorf("redistest: cluster of %d masters with %d replicas each", masters, replicasPerMaster)
	}
	n := masters * (1 + replicasPerMaster)
	c := &Cluster{
		nodes:     make([]*Server, n),
		busPorts:  make([]int, n),
		masters:   masters,
		perMaster: replicasPerMaster,
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := c.start(ctx); err != nil {
		_ = c.Close()
		return nil, fmt.Errorf("start cluster: %w", err)
	}
	return c, nil
}

func (c *Cluster) start(ctx context.Context) error {
	err := startEach(c.nodes, func(i int) (s *Server, err error) {
		s, c.busPorts[i], err = startClusterNode()
		return s, err
	})
	if err != nil {
		return err
	}

	admins := make([]*redis.Client, len(c.nodes))
	for i, s := range c.nodes {
		admins[i] = redis.NewClient(adminOptions(s.Addr))
		defer admins[i].Close()
	}
	ids := make([]string, len(c.nodes))
	for i, a := range admins {
		id, err := a.ClusterMyID(ctx).Result()
		if err != nil {
			return fmt.Errorf("%s: cluster myid: %w", c.nodes[i].Addr, err)
		}
		ids[i] = id
	}
	// Distinct config epochs, set while each master knows only itself
	// (the only time Redis allows it), spare the cluster resolving the
	// collision of all-zero epochs before it agrees on the slot owners.
	for i, a := range admins[:c.masters] {
		lo, hi := c.slotRange(i)
		if err := a.Do(ctx, "cluster", "set-config-epoch", i+1).Err(); err != nil {
			return fmt.Errorf("%s: cluster set-config-epoch: %w", c.nodes[i].Addr, err)
		}
		if err := a.ClusterAddSlotsRange(ctx, lo, hi).Err(); err != nil {
			return fmt.Errorf("%s: cluster addslotsrange %d %d: %w", c.nodes[i].Addr, lo, hi, err)
		}
	}
	// Node 0 meets every other node; gossip introduces the rest.
	for i, s := range c.nodes[1:] {
		host, port, _ := net.SplitHostPort(s.Addr)
		meet := []any{"cluster", "meet", host, port, c.busPorts[i+1]}
		if before7() { // no bus port argument: it is port+10000
			meet = meet[:4]
		}
		if err := admins[0].Do(ctx, meet...).Err(); err != nil {
			return fmt.Errorf("%s: cluster meet %s: %w", c.nodes[0].Addr, s.Addr, err)
		}
	}
	// A replica can follow its master once gossip has told it the
	// master's ID.
	for i := c.masters; i < len(c.nodes); i++ {
		master := c.masterIndex(i)
		err := waitUntil(ctx, "replicate "+c.nodes[i].Addr, func(ctx context.Context) error {
			return admins[i].ClusterReplicate(ctx, ids[master]).Err()
		})
		if err != nil {
			return err
		}
	}

	want := c.wantSlots()
	return waitUntil(ctx, "cluster ready", func(ctx context.Context) error {
		for i, a := range admins {
			info, err := a.ClusterInfo(ctx).Result()
			if err != nil {
				return err
			}
			if !strings.Contains(info, "cluster_state:ok") {
				return fmt.Errorf("%s: cluster_state not ok", c.nodes[i].Addr)
			}
			slots, err := shardRanges(ctx, a)
			if err != nil {
				return err
			}
			if got := slotMap(slots); got != want {
				return fmt.Errorf("%s: slot map %q, want %q", c.nodes[i].Addr, got, want)
			}
			if i >= c.masters {
				repl, err := a.Info(ctx, "replication").Result()
				if err != nil {
					return err
				}
				if !strings.Contains(repl, "master_link_status:up") {
					return fmt.Errorf("%s: replica not in sync", c.nodes[i].Addr)
				}
			}
		}
		return nil
	})
}

// startClusterNode starts a cluster-enabled node. The cluster bus port is
// picked here, not left at port+10000, which can exceed 65535 for a port
// from the ephemeral range; if it was taken meanwhile, the node cannot
// start, so a few are tried.
func startClusterNode() (*Server, int, error) {
	if before7() {
		return startLegacyClusterNode()
	}
	var lastErr error
	for range 3 {
		bus, err := freePort()
		if err != nil {
			lastErr = err
			continue
		}
		args := append([]string{
			"--cluster-enabled", "yes",
			"--cluster-announce-ip", "127.0.0.1",
			"--cluster-port", strconv.Itoa(bus),
			"--cluster-node-timeout", strconv.FormatInt(ClusterNodeTimeout.Milliseconds(), 10),
		}, replicationArgs...)
		s, err := Start(args...)
		if err == nil {
			return s, bus, nil
		}
		lastErr = err
	}
	return nil, 0, lastErr
}

// legacyBusOffset is where a Redis before 7.0 puts its cluster bus: its
// port plus 10000, as it has no --cluster-port.
const legacyBusOffset = 10000

// startLegacyClusterNode is startClusterNode for a Redis before 7.0: its
// port is picked below 65536-legacyBusOffset, with the bus port above it
// free too.
func startLegacyClusterNode() (*Server, int, error) {
	args := []string{
		"--cluster-enabled", "yes",
		"--cluster-announce-ip", "127.0.0.1",
		"--cluster-node-timeout", strconv.FormatInt(ClusterNodeTimeout.Milliseconds(), 10),
	}
	args = append(args, replicationArgs...)
	s, err := startOn("", args, func() (int, error) {
		for range 50 {
			port := 20000 + rand.IntN(65535-legacyBusOffset-20000)
			if portFree(port) && portFree(port+legacyBusOffset) {
				return port, nil
			}
		}
		return 0, errors.New("no free port with a free cluster bus port beside it")
	})
	if err != nil {
		return nil, 0, err
	}
	_, port, _ := net.SplitHostPort(s.Addr)
	p, _ := strconv.Atoi(port)
	return s, p + legacyBusOffset, nil
}

// legacyArgs are args without the options a Redis before 7.0 lacks
// (before7), each with its value: startOn drops them there.
func legacyArgs(args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		if args[i] == "--shutdown-on-sigint" || args[i] == "--cluster-port" {
			i++
			continue
		}
		out = append(out, args[i])
	}
	return out
}

// portFree reports whether a listener can bind port on 127.0.0.1 now.
func portFree(port int) bool {
	l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return false
	}
	_ = l.Close()
	return true
}

// Addrs returns the host:port of every node: the masters, in slot order,
// then their replicas, as started (a failover since does not reorder
// them).
func (c *Cluster) Addrs() []string {
	addrs := make([]string, len(c.nodes))
	for i, s := range c.nodes {
		addrs[i] = s.Addr
	}
	return addrs
}

// Client returns a new go-redis cluster client of the cluster, seeded with
// every node; it is closed when the test ends.
func (c *Cluster) Client(tb testing.TB) *redis.ClusterClient {
	tb.Helper()
	rdb := redis.NewClusterClient(&redis.ClusterOptions{Addrs: c.Addrs()})
	tb.Cleanup(func() { _ = rdb.Close() })
	return rdb
}

// FlushAll flushes every database of every current master (replicas
// follow), so that each test starts from an empty cluster.
func (c *Cluster) FlushAll(tb testing.TB) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	slots, err := c.Slots(ctx)
	if err != nil {
		tb.Fatalf("flush cluster: %v", err)
	}
	for _, s := range slots {
		rdb := redis.NewClient(adminOptions(s.Master))
		err := rdb.FlushAll(ctx).Err()
		_ = rdb.Close()
		if err != nil {
			tb.Fatalf("flush cluster: %s: %v", s.Master, err)
		}
	}
}

// Close stops every node and removes their working directories. Calling it
// again does nothing more and returns the same result.
func (c *Cluster) Close() error {
	c.closeOnce.Do(func() { c.closeErr = closeAll(c.nodes) })
	return c.closeErr
}

// closeAll closes the servers, all at once, and skips nil ones: those a
// failed start left unset.
func closeAll(servers []*Server) error {
	errs := make([]error, len(servers))
	var wg sync.WaitGroup
	for i, s := range servers {
		if s == nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = s.Close()
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// startEach sets servers[i] to start(i) for every i, all started at once.
func startEach(servers []*Server, start func(i int) (*Server, error)) error {
	errs := make([]error, len(servers))
	var wg sync.WaitGroup
	for i := range servers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			servers[i], errs[i] = start(i)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}
