package redistest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// SentinelDownAfter is the down-after-milliseconds of every Sentinel that
// StartSentinel starts: how long a master must be unreachable before a
// Sentinel thinks it down and, with a quorum, fails it over.
//
// It is above the 1 s a Sentinel waits between two connection attempts to
// an instance: when a Sentinel switches from a killed master to the new
// one, its last attempt on the dead address can hold back its first
// connection to the new master for up to a second, and a shorter
// down-after would declare the new master down and fail it over again.
const SentinelDownAfter = 1500 * time.Millisecond

// sentinelFailoverTimeout is the failover-timeout of every Sentinel: how
// long a failover may take before it is abandoned, and, doubled, how long
// a Sentinel waits before failing over the same master again.
const sentinelFailoverTimeout = 2 * time.Second

// sentinelMasterName is the name under which the Sentinels monitor the
// master.
const sentinelMasterName = "mymaster"

// Sentinel is a Redis master with replicas, monitored by Redis Sentinels,
// all child processes on 127.0.0.1 with their own working directories and
// persistence off.
//
// After a failover the data nodes keep running in their new roles; a
// former master that is still running stays a master until Sentinel
// demotes it, about 10 s after the switch, as in production.
type Sentinel struct {
	// data holds the first master, then the replicas.
	data      []*Server
	sentinels []*Server

	closeOnce sync.Once
	closeErr  error
}

// StartSentinel starts a master with replicas replicas and sentinels
// Sentinels that monitor it, with a quorum of a majority of them, on free
// loopback ports. It returns once every replica is in sync with the
// master and every Sentinel sees the master, all the replicas and all the
// other Sentinels, so that a failover can start at once.
func StartSentinel(replicas, sentinels int) (*Sentinel, error) {
	if replicas < 0 || sentinels < 1 {
		return nil, fmt.Errorf("redistest: %d replicas and %d sentinels", replicas, sentinels)
	}
	s := &Sentinel{
		data:      make([]*Server, 1+replicas),
		sentinels: make([]*Server, sentinels),
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := s.start(ctx); err != nil {
		_ = s.Close()
		return nil, fmt.Errorf("start sentinel: %w", err)
	}
	return s, nil
}

// SentinelFor starts a Sentinel group as StartSentinel does, for the test
// tb: it fails tb when the group cannot start, and closes the group when
// tb ends.
func SentinelFor(tb testing.TB, replicas, sentinels int) *Sentinel {
	tb.Helper()
	begin := time.Now()
	s, err := StartSentinel(replicas, sentinels)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Logf("master, %d replica(s) and %d sentinel(s) started in %v", replicas, sentinels, time.Since(begin).Round(time.Millisecond))
	tb.Cleanup(func() {
		if err := s.Close(); err != nil {
			tb.Errorf("close sentinel group: %v", err)
		}
	})
	return s
}

func (s *Sentinel) start(ctx context.Context) error {
	master, err := Start(replicationArgs...)
	if err != nil {
		return err
	}
	s.data[0] = master
	host, port, _ := net.SplitHostPort(master.Addr)

	replicaArgs := append([]string{"--replicaof", host, port}, replicationArgs...)
	if err := startEach(s.data[1:], func(int) (*Server, error) { return Start(replicaArgs...) }); err != nil {
		return err
	}
	// A Sentinel learns the replicas from the master's INFO, which it
	// asks for when it connects and then only every 10 s: start the
	// Sentinels once the master lists every replica.
	err = waitUntil(ctx, "replicas in sync", func(ctx context.Context) error {
		for _, r := range s.data[1:] {
			if err := replicaInSync(ctx, r.Addr); err != nil {
				return err
			}
		}
		rdb := redis.NewClient(adminOptions(master.Addr))
		defer rdb.Close()
		info, err := rdb.Info(ctx, "replication").Result()
		if err != nil {
			return err
		}
		if online := strings.Count(info, ",state=online,"); online != len(s.data)-1 {
			return fmt.Errorf("master lists %d replicas online, want %d", online, len(s.data)-1)
		}
		return nil
	})
	if err != nil {
		return err
	}

	quorum := len(s.sentinels)/2 + 1
	conf := fmt.Sprintf("sentinel monitor %[1]s %[2]s %[3]s %[4]d\n"+
		"sentinel down-after-milliseconds %[1]s %[5]d\n"+
		"sentinel failover-timeout %[1]s %[6]d\n"+
		"sentinel parallel-syncs %[1]s %[7]d\n",
		sentinelMasterName, host, port, quorum,
		SentinelDownAfter.Milliseconds(), sentinelFailoverTimeout.Milliseconds(), max(1, len(s.data)-1))
	if err := startEach(s.sentinels, func(int) (*Server, error) { return start(conf, []string{"--sentinel"}) }); err != nil {
		return err
	}
	// Sentinels find one another through hello messages that each
	// publishes on the monitored instances every 2 s.
	return waitUntil(ctx, "sentinels ready", func(ctx context.Context) error {
		for _, sn := range s.sentinels {
			if err := s.sentinelReady(ctx, sn.Addr); err != nil {
				return fmt.Errorf("sentinel %s: %w", sn.Addr, err)
			}
		}
		return nil
	})
}

// replicaInSync reports an error unless the server at addr is a replica
// whose link to its master is up.
func replicaInSync(ctx context.Context, addr string) error {
	rdb := redis.NewClient(adminOptions(addr))
	defer rdb.Close()
	info, err := rdb.Info(ctx, "replication").Result()
	if err != nil {
		return err
	}
	if !strings.Contains(info, "master_link_status:up") {
		return fmt.Errorf("replica %s not in sync", addr)
	}
	return nil
}

// sentinelReady reports an error unless the Sentinel at addr sees the
// master up, every replica up and every other Sentinel.
func (s *Sentinel) sentinelReady(ctx context.Context, addr string) error {
	sc := redis.NewSentinelClient(adminOptions(addr))
	defer sc.Close()
	m, err := sc.Master(ctx, sentinelMasterName).Result()
	if err != nil {
		return err
	}
	if m["flags"] != "master" {
		return fmt.Errorf("master flags %q", m["flags"])
	}
	if got, want := m["num-slaves"], strconv.Itoa(len(s.data)-1); got != want {
		return fmt.Errorf("sees %s replicas, want %s", got, want)
	}
	if got, want := m["num-other-sentinels"], strconv.Itoa(len(s.sentinels)-1); got != want {
		return fmt.Errorf("sees %s other sentinels, want %s", got, want)
	}
	replicas, err := sc.Replicas(ctx, sentinelMasterName).Result()
	if err != nil {
		return err
	}
	for _, r := range replicas {
		if r["flags"] != "slave" || r["master-link-status"] != "ok" {
			return fmt.Errorf("replica %s:%s flags %q, master link %q", r["ip"], r["port"], r["flags"], r["master-link-status"])
		}
	}
	return nil
}

// MasterName returns the name under which the Sentinels monitor the master,
// for redis.FailoverOptions.MasterName.
func (s *Sentinel) MasterName() string { return sentinelMasterName }

// SentinelAddrs returns the host:port of every Sentinel.
func (s *Sentinel) SentinelAddrs() []string {
	addrs := make([]string, len(s.sentinels))
	for i, sn := range s.sentinels {
		addrs[i] = sn.Addr
	}
	return addrs
}

// MasterAddr returns the host:port of the master, as the first Sentinel
// that answers names it.
func (s *Sentinel) MasterAddr(ctx context.Context) (string, error) {
	var lastErr error
	for _, sn := range s.sentinels {
		addr, err := sentinelMasterAddr(ctx, sn.Addr)
		if err == nil {
			return addr, nil
		}
		lastErr = err
	}
	return "", fmt.Errorf("no sentinel names the master: %w", lastErr)
}

// sentinelMasterAddr returns the master's host:port as the Sentinel at addr
// names it.
func sentinelMasterAddr(ctx context.Context, addr string) (string, error) {
	sc := redis.NewSentinelClient(adminOptions(addr))
	defer sc.Close()
	hp, err := sc.GetMasterAddrByName(ctx, sentinelMasterName).Result()
	if err != nil {
		return "", err
	}
	if len(hp) != 2 {
		return "", fmt.Errorf("sentinel %s: get-master-addr-by-name: %q", addr, hp)
	}
	return net.JoinHostPort(hp[0], hp[1]), nil
}

// FailoverClient returns a new go-redis failover client of the master, which
// follows it through failovers; it is closed when the test ends.
func (s *Sentinel) FailoverClient(tb testing.TB) *redis.Client {
	tb.Helper()
	rdb := redis.NewFailoverClient(&redis.FailoverOptions{
		MasterName:    sentinelMasterName,
		SentinelAddrs: s.SentinelAddrs(),
	})
	tb.Cleanup(func() { _ = rdb.Close() })
	return rdb
}

// Close stops the Sentinels, then the data nodes, and removes their
// working directories. Calling it again does nothing more and returns the
// same result.
func (s *Sentinel) Close() error {
	s.closeOnce.Do(func() {
		s.closeErr = errors.Join(closeAll(s.sentinels), closeAll(s.data))
	})
	return s.closeErr
}
