package fleet

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/test/proof/store"
	"github.com/relock-go/relock/test/redistest"
)

// services are the run's Redis servers: the resource, which no fault
// touches, and the lock service of each namespace: the single server (with
// AOF, so that it can restart from it) and a Sentinel deployment (master,
// replica, three Sentinels) for each of ack and noack.
type services struct {
	resource  *redistest.Server
	single    *redistest.Server
	sentinels map[string]*redistest.Sentinel
	// redlock are the redlock workload's three independent servers, which
	// no fault of a lock service touches.
	redlock []*redistest.Server
	cluster *redistest.Cluster // the cluster namespace's, if the run has it
	// admin is a client of the resource, for the epochs and the marks.
	admin *redis.Client
}

// startServices starts the resource and the lock services of namespaces,
// the Sentinel deployments in parallel (each waits for its Sentinels to
// find one another), and with redlock the redlock workload's servers.
func startServices(namespaces []string, redlock bool) (*services, error) {
	s := &services{sentinels: make(map[string]*redistest.Sentinel)}
	var mu sync.Mutex
	var wg sync.WaitGroup
	var errs []error
	add := func(err error) {
		mu.Lock()
		errs = append(errs, err)
		mu.Unlock()
	}
	for _, ns := range namespaces {
		if ns == store.Single || ns == store.Cluster {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			d, err := redistest.StartSentinel(1, 3)
			if err != nil {
				add(fmt.Errorf("%s: %w", ns, err))
				return
			}
			mu.Lock()
			s.sentinels[ns] = d
			mu.Unlock()
		}()
	}
	if slices.Contains(namespaces, store.Cluster) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := startCluster()
			mu.Lock()
			s.cluster = c
			mu.Unlock()
			if err != nil {
				add(fmt.Errorf("%s: %w", store.Cluster, err))
			}
		}()
	}
	var err error
	if s.resource, err = redistest.Start(); err != nil {
		add(err)
	}
	if slices.Contains(namespaces, store.Single) {
		if s.single, err = redistest.Start("--appendonly", "yes", "--appendfsync", "everysec"); err != nil {
			add(err)
		}
		for i := 0; redlock && i < 3; i++ {
			srv, err := redistest.Start()
			if err != nil {
				add(err)
				break
			}
			s.redlock = append(s.redlock, srv)
		}
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, errors.Join(err, s.close())
	}
	s.admin = redis.NewClient(&redis.Options{Addr: s.resource.Addr})
	if err := s.onlyPlannedFailovers(); err != nil {
		return nil, errors.Join(err, s.close())
	}
	return s, nil
}

// downAfter is how long the Sentinels let a master be unreachable before
// they fail it over on their own. The nemesis fails masters over itself
// (SENTINEL FAILOVER, which needs no vote; or, in an unplanned failover,
// with a short down-after for the fault's span alone), and a master that
// a loaded machine stalls for a second or two must not be failed over
// behind its back: such a failover, recorded nowhere, would show as
// violations in a quiet stretch of the history.
const downAfter = time.Minute

// onlyPlannedFailovers sets every Sentinel's down-after-milliseconds to
// downAfter.
func (s *services) onlyPlannedFailovers() error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, d := range s.sentinels {
		if err := setDownAfter(ctx, d, downAfter); err != nil {
			return err
		}
	}
	return nil
}

// setDownAfter sets the down-after-milliseconds of d's Sentinels.
func setDownAfter(ctx context.Context, d *redistest.Sentinel, after time.Duration) error {
	for _, addr := range d.SentinelAddrs() {
		sc := redis.NewSentinelClient(&redis.Options{Addr: addr})
		err := sc.Set(ctx, d.MasterName(), "down-after-milliseconds", strconv.FormatInt(after.Milliseconds(), 10)).Err()
		_ = sc.Close()
		if err != nil {
			return fmt.Errorf("sentinel %s: %w", addr, err)
		}
	}
	return nil
}

func (s *services) close() error {
	var errs []error
	if s.admin != nil {
		errs = append(errs, s.admin.Close())
	}
	for _, d := range s.sentinels {
		errs = append(errs, d.Close())
	}
	if s.cluster != nil {
		errs = append(errs, s.cluster.Close())
	}
	for _, srv := range append([]*redistest.Server{s.single, s.resource}, s.redlock...) {
		if srv != nil {
			errs = append(errs, srv.Close())
		}
	}
	return errors.Join(errs...)
}

// nodes returns the data nodes of namespace ns's Sentinel deployment,
// master first, as its Sentinels name them.
func (s *services) nodes(ctx context.Context, ns string) ([]string, error) {
	d := s.sentinels[ns]
	master, err := d.MasterAddr(ctx)
	if err != nil {
		return nil, err
	}
	sc := redis.NewSentinelClient(&redis.Options{Addr: d.SentinelAddrs()[0]})
	defer sc.Close()
	replicas, err := sc.Replicas(ctx, d.MasterName()).Result()
	if err != nil {
		return nil, err
	}
	out := []string{master}
	for _, r := range replicas {
		out = append(out, net.JoinHostPort(r["ip"], r["port"]))
	}
	return out, nil
}

// restart kills the single server and starts it again: from its AOF
// written with appendfsync mode ("always", "everysec"), or, for "none",
// empty: its AOF is turned off and removed first.
func (s *services) restart(ctx context.Context, mode string) error {
	rdb := redis.NewClient(&redis.Options{Addr: s.single.Addr})
	defer rdb.Close()
	switch mode {
	case "always", "everysec":
		if err := rdb.ConfigSet(ctx, "appendfsync", mode).Err(); err != nil {
			return err
		}
	case "none":
		cfg, err := rdb.ConfigGet(ctx, "*").Result()
		if err != nil {
			return err
		}
		if err := rdb.ConfigSet(ctx, "appendonly", "no").Err(); err != nil {
			return err
		}
		// The server was started with --appendonly yes: it comes back with
		// a new, empty AOF.
		if err := os.RemoveAll(filepath.Join(cfg["dir"], cfg["appenddirname"])); err != nil {
			return err
		}
	default:
		return fmt.Errorf("restart: unknown mode %q", mode)
	}
	// A restart that failed leaves the service down for the rest of the
	// run: it is tried three times.
	var err error
	for range 3 {
		if err = s.single.Restart(); err == nil {
			return nil
		}
	}
	return err
}

// failover fails namespace ns's master over to its replica, then waits
// until the deployment has a replica in sync again (the former master,
// which Sentinel demotes some ten seconds later), so that the next failover
// can begin.
func (s *services) failover(ctx context.Context, ns string) error {
	if err := s.sentinels[ns].Failover(ctx); err != nil {
		return err
	}
	return s.awaitReplica(ctx, ns)
}

// awaitReplica waits until namespace ns's master has its replica in sync.
func (s *services) awaitReplica(ctx context.Context, ns string) error {
	d := s.sentinels[ns]
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	return poll(ctx, func() error {
		master, err := d.MasterAddr(ctx)
		if err != nil {
			return err
		}
		rdb := redis.NewClient(&redis.Options{Addr: master})
		defer rdb.Close()
		info, err := rdb.Info(ctx, "replication").Result()
		if err != nil {
			return err
		}
		if !strings.Contains(info, "connected_slaves:1") || !strings.Contains(info, ",state=online,") {
			return fmt.Errorf("%s: no replica in sync yet", ns)
		}
		return nil
	})
}

// scriptFlush empties the script cache of every lock service's master.
func (s *services) scriptFlush(ctx context.Context) error {
	var addrs []string
	if s.single != nil {
		addrs = append(addrs, s.single.Addr)
	}
	for _, d := range s.sentinels {
		a, err := d.MasterAddr(ctx)
		if err != nil {
			return err
		}
		addrs = append(addrs, a)
	}
	if s.cluster != nil {
		addrs = append(addrs, s.cluster.Addrs()...) // replicas too: each may be promoted
	}
	for _, a := range addrs {
		rdb := redis.NewClient(&redis.Options{Addr: a})
		err := rdb.ScriptFlush(ctx).Err()
		_ = rdb.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

// pollInterval is how often poll tests its condition.
const pollInterval = 50 * time.Millisecond

// poll calls cond every pollInterval until it returns nil, or ctx ends.
func poll(ctx context.Context, cond func() error) error {
	t := time.NewTicker(pollInterval)
	defer t.Stop()
	for {
		err := cond()
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w (last: %v)", ctx.Err(), err)
		case <-t.C:
		}
	}
}
