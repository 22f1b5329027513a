package fleet

import (
	"context"
	"fmt"
	"net"
	"slices"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/test/proof/nemesis"
	"github.com/relock-go/relock/test/proof/store"
	"github.com/relock-go/relock/test/redistest"
)

// clusterNodeTimeout is the proof Cluster's cluster-node-timeout: as for
// the Sentinels' down-after (downAfter), a node that a loaded machine
// stalls must not be failed over behind the nemesis's back.
const clusterNodeTimeout = time.Minute

// startCluster starts the cluster namespace's Redis Cluster: three masters
// with a replica each.
func startCluster() (*redistest.Cluster, error) {
	c, err := redistest.StartCluster(3, 1)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, addr := range c.Addrs() {
		err := withNode(addr, func(rdb *redis.Client) error {
			return rdb.ConfigSet(ctx, "cluster-node-timeout", fmt.Sprint(clusterNodeTimeout.Milliseconds())).Err()
		})
		if err != nil {
			return c, err
		}
	}
	return c, nil
}

// withNode calls fn with a client of the node at addr.
func withNode(addr string, fn func(*redis.Client) error) error {
	rdb := redis.NewClient(&redis.Options{Addr: addr})
	defer rdb.Close()
	if err := fn(rdb); err != nil {
		return fmt.Errorf("%s: %w", addr, err)
	}
	return nil
}

// served returns the key of an object of the cluster namespace in use now,
// of a workload chosen by pick, the master that serves it, and the slot
// map.
func (f *fleet) served(ctx context.Context, pick int) (key, master string, slots []redistest.SlotRange, err error) {
	var wls []string
	for _, wl := range f.cfg.Workloads {
		if wl != store.RedLock {
			wls = append(wls, wl)
		}
	}
	wl := wls[pick%len(wls)]
	epoch, err := store.New(f.svc.admin, "nemesis").Epoch(ctx, store.Cluster, wl)
	if err != nil {
		return "", "", nil, err
	}
	key = store.Object(store.Cluster, wl, epoch)
	slots, err = f.svc.cluster.Slots(ctx)
	return key, f.svc.cluster.MasterOf(key), slots, err
}

// clusterFailover promotes the replica of the master that serves an object
// in use (CLUSTER FAILOVER), and waits until the former master is its
// replica in sync.
func (f *fleet) clusterFailover(ctx context.Context, fault nemesis.Fault) error {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	key, old, slots, err := f.served(ctx, fault.Pick)
	if err != nil {
		return err
	}
	c := f.svc.cluster
	var replica string
	for _, s := range slots {
		if s.Master == old && len(s.Replicas) > 0 {
			replica = s.Replicas[0]
		}
	}
	if replica == "" {
		return fmt.Errorf("cluster failover: master %s of %s has no replica", old, key)
	}
	if err := withNode(replica, func(rdb *redis.Client) error { return rdb.Do(ctx, "cluster", "failover").Err() }); err != nil {
		return err
	}
	if err := poll(ctx, func() error {
		if m := c.MasterOf(key); m != replica {
			return fmt.Errorf("%s still served by %s", key, m)
		}
		return nil
	}); err != nil {
		return err
	}
	return poll(ctx, func() error {
		return withNode(old, func(rdb *redis.Client) error {
			info, err := rdb.Info(ctx, "replication").Result()
			if err == nil && (!strings.Contains(info, "role:slave") || !strings.Contains(info, "master_link_status:up")) {
				err = fmt.Errorf("not a replica in sync yet")
			}
			return err
		})
	})
}

// migrateSlot moves the hash slot of an object in use to another master:
// the target imports it, the source migrates it, its keys are moved with
// MIGRATE, and every master is told the target serves it.
func (f *fleet) migrateSlot(ctx context.Context, fault nemesis.Fault) error {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	key, src, slots, err := f.served(ctx, fault.Pick)
	if err != nil {
		return err
	}
	var masters []string
	for _, s := range slots {
		if s.Master != src && !slices.Contains(masters, s.Master) {
			masters = append(masters, s.Master)
		}
	}
	if len(masters) == 0 {
		return fmt.Errorf("slot migration: no master but %s", src)
	}
	slices.Sort(masters)
	dst := masters[fault.Pick%len(masters)]
	ids := map[string]string{}
	var slot int64
	for _, addr := range append([]string{src}, masters...) {
		err := withNode(addr, func(rdb *redis.Client) error {
			var err error
			if ids[addr], err = rdb.Do(ctx, "cluster", "myid").Text(); err == nil && addr == src {
				slot, err = rdb.ClusterKeySlot(ctx, key).Result()
			}
			return err
		})
		if err != nil {
			return err
		}
	}
	setSlot := func(addr string, args ...any) error {
		return withNode(addr, func(rdb *redis.Client) error {
			return rdb.Do(ctx, append([]any{"cluster", "setslot", slot}, args...)...).Err()
		})
	}
	if err := setSlot(dst, "importing", ids[src]); err != nil {
		return err
	}
	if err := setSlot(src, "migrating", ids[dst]); err != nil {
		return err
	}
	host, port, _ := net.SplitHostPort(dst)
	err = withNode(src, func(rdb *redis.Client) error {
		for {
			keys, err := rdb.ClusterGetKeysInSlot(ctx, int(slot), 100).Result()
			if err != nil || len(keys) == 0 {
				return err
			}
			args := []any{"migrate", host, port, "", 0, 5000, "keys"}
			for _, k := range keys {
				args = append(args, k)
			}
			if err := rdb.Do(ctx, args...).Err(); err != nil {
				return err
			}
		}
	})
	if err != nil {
		return err
	}
	for _, addr := range append([]string{dst, src}, masters...) {
		if err := setSlot(addr, "node", ids[dst]); err != nil {
			return err
		}
	}
	return nil
}
