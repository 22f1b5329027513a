// Package redisstats counts what the benchmarks cost Redis: commands and
// round trips seen by a go-redis client (a hook), and commands run by the
// server (INFO commandstats) with other INFO figures.
package redisstats

import (
	"context"
	"net"
	"sync/atomic"

	"github.com/redis/go-redis/v9"
)

// Counter is a go-redis hook that counts the commands a client sends, the
// round trips they take (a pipeline is one) and the connections it dials.
// Commands a go-redis PubSub sends on its own connection (SUBSCRIBE,
// UNSUBSCRIBE, PING) bypass hooks and are not counted here.
type Counter struct {
	cmds, trips, dials atomic.Int64
}

// Counts is a snapshot of a Counter.
type Counts struct {
	Commands   int64 `json:"commands"`
	RoundTrips int64 `json:"round_trips"`
	Dials      int64 `json:"dials"`
}

// Sub returns c - o.
func (c Counts) Sub(o Counts) Counts {
	return Counts{Commands: c.Commands - o.Commands, RoundTrips: c.RoundTrips - o.RoundTrips, Dials: c.Dials - o.Dials}
}

// Add returns c + o.
func (c Counts) Add(o Counts) Counts {
	return Counts{Commands: c.Commands + o.Commands, RoundTrips: c.RoundTrips + o.RoundTrips, Dials: c.Dials + o.Dials}
}

// Snapshot returns the counts so far.
func (c *Counter) Snapshot() Counts {
	return Counts{Commands: c.cmds.Load(), RoundTrips: c.trips.Load(), Dials: c.dials.Load()}
}

// DialHook counts new connections.
func (c *Counter) DialHook(next redis.DialHook) redis.DialHook {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		c.dials.Add(1)
		return next(ctx, network, addr)
	}
}

// ProcessHook counts one command and one round trip.
func (c *Counter) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		c.cmds.Add(1)
		c.trips.Add(1)
		return next(ctx, cmd)
	}
}

// ProcessPipelineHook counts every command of the pipeline and one round trip.
func (c *Counter) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		c.cmds.Add(int64(len(cmds)))
		c.trips.Add(1)
		return next(ctx, cmds)
	}
}

// NewClient returns a go-redis client of addr with a fresh Counter hooked in.
func NewClient(addr string) (*redis.Client, *Counter) {
	rdb := redis.NewClient(&redis.Options{Addr: addr})
	c := &Counter{}
	rdb.AddHook(c)
	return rdb, c
}

// NewClusterClient returns a go-redis cluster client seeded with addrs,
// with a fresh Counter hooked into each of its node clients: a command
// routed by the cluster client and one sent to a node it hands out
// (ForEachShard, MasterForKey) are both counted, each once.
func NewClusterClient(addrs []string) (*redis.ClusterClient, *Counter) {
	rdb := redis.NewClusterClient(&redis.ClusterOptions{Addrs: addrs})
	c := &Counter{}
	rdb.OnNewNode(func(node *redis.Client) { node.AddHook(c) })
	return rdb, c
}
