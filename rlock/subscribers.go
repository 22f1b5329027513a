package rlock

import (
	"context"
	"sync/atomic"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/scripts"
)

// subscribers counts the subscriptions to channels, all in the slot of the
// lock called name: with sharded pub/sub on the master of that slot, with
// classic pub/sub on every node of a Redis Cluster (each counts only its
// own clients), else on the one server.
func (c *Client) subscribers(ctx context.Context, name string, channels []string) (int, error) {
	if len(channels) == 0 {
		return 0, nil // a rate limiter's: it has no channel
	}
	w, err := c.pubsub(ctx)
	if err != nil {
		return 0, err
	}
	if w.publish == scripts.SPublish {
		master, err := c.master(ctx, name)
		if err != nil {
			return 0, err
		}
		return sum(master.PubSubShardNumSub(ctx, channels...).Result())
	}
	cluster, ok := c.rdb.(*redis.ClusterClient)
	if !ok {
		return sum(c.rdb.PubSubNumSub(ctx, channels...).Result())
	}
	var total atomic.Int64
	err = cluster.ForEachShard(ctx, func(ctx context.Context, node *redis.Client) error {
		n, err := sum(node.PubSubNumSub(ctx, channels...).Result())
		total.Add(int64(n))
		return err
	})
	return int(total.Load()), err
}

// sum is the total of a NUMSUB reply's counts.
func sum(counts map[string]int64, err error) (int, error) {
	var n int64
	for _, count := range counts {
		n += count
	}
	return int(n), err
}
