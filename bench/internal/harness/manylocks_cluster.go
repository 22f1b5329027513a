package harness

import (
	"context"
	"slices"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/bench/internal/redisstats"
)

// MasterCost is what one master of a Cluster carried in a many-locks run:
// its share of the locks, and its CPU time at settle and at drain.
type MasterCost struct {
	Addr          string  `json:"addr"`
	Locks         int     `json:"locks"`
	SettleCPU     float64 `json:"settle_cpu_seconds"`
	DrainCPU      float64 `json:"drain_cpu_seconds"`
	SettleCPUPerK float64 `json:"settle_cpu_seconds_per_1000_locks"`
	DrainCPUPerK  float64 `json:"drain_cpu_seconds_per_1000_locks"`
}

// connect returns a go-redis client for one of the run's Clients, counted,
// of the server or the Cluster.
func (m ManyLocks) connect() (redis.UniversalClient, *redisstats.Counter) {
	if len(m.Cluster) > 0 {
		return redisstats.NewClusterClient(m.Cluster)
	}
	return redisstats.NewClient(m.Addr)
}

// servers returns the servers the run's locks live on: admin's, or the
// Cluster's masters (closed by the returned function).
func (m ManyLocks) servers(ctx context.Context, admin *redis.Client) (servers, func(), error) {
	if len(m.Cluster) == 0 {
		return servers{nodes: []*redis.Client{admin}}, func() {}, nil
	}
	cl := redis.NewClusterClient(&redis.ClusterOptions{Addrs: m.Cluster})
	defer cl.Close()
	masters, err := clusterMasters(ctx, cl)
	if err != nil {
		return servers{}, nil, err
	}
	srv := servers{sharded: m.Sharded}
	for _, ms := range masters {
		srv.nodes = append(srv.nodes, redis.NewClient(&redis.Options{Addr: ms.Addr}))
	}
	return srv, func() {
		for _, n := range srv.nodes {
			_ = n.Close()
		}
	}, nil
}

// masterCosts counts the locks named on each of srv's masters, and their
// CPU time in each phase, per thousand locks.
func masterCosts(ctx context.Context, seeds []string, srv servers, names []string, settle, drain Phase) ([]MasterCost, error) {
	cl := redis.NewClusterClient(&redis.ClusterOptions{Addrs: seeds})
	defer cl.Close()
	out := make([]MasterCost, len(srv.nodes))
	for i, n := range srv.nodes {
		out[i].Addr = n.Options().Addr
	}
	for _, name := range names {
		node, err := cl.MasterForKey(ctx, name)
		if err != nil {
			return nil, err
		}
		if i := slices.IndexFunc(out, func(c MasterCost) bool { return c.Addr == node.Options().Addr }); i >= 0 {
			out[i].Locks++
		}
	}
	for i := range out {
		c := &out[i]
		if i < len(settle.NodeCPUSeconds) && i < len(drain.NodeCPUSeconds) {
			c.SettleCPU, c.DrainCPU = settle.NodeCPUSeconds[i], drain.NodeCPUSeconds[i]
		}
		c.SettleCPUPerK, c.DrainCPUPerK = ratio(1000*c.SettleCPU, float64(c.Locks)), ratio(1000*c.DrainCPU, float64(c.Locks))
	}
	return out, nil
}
