package rlock

import (
	"context"
	"sync"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/scripts"
)

// subscribers counts the subscriptions to each of channels, all in the
// hash slot of the lock called name: with sharded pub/sub on the master of
// that slot, with classic pub/sub on every node of a Redis Cluster (each counts
// only its own clients), else on the one server.
func (c *Client) subscribers(ctx context.Context, name string, channels []string) (map[string]int64, error) {
	if len(channels) == 0 {
		return nil, nil // a rate limiter's: it has no channel
	}
	if err := c.begin(ctx); err != nil {
		return nil, err
	}
	if c.publishCommand() == scripts.SPublish {
		master, err := c.master(ctx, name)
		if err != nil {
			return nil, err
		}
		return master.PubSubShardNumSub(ctx, channels...).Result()
	}
	cluster, ok := c.rdb.(*redis.ClusterClient)
	if !ok {
		return c.rdb.PubSubNumSub(ctx, channels...).Result()
	}
	var mu sync.Mutex
	total := make(map[string]int64, len(channels))
	err := cluster.ForEachShard(ctx, func(ctx context.Context, node *redis.Client) error {
		counts, err := node.PubSubNumSub(ctx, channels...).Result()
		mu.Lock()
		defer mu.Unlock()
		for ch, n := range counts {
			total[ch] += n
		}
		return err
	})
	return total, err
}

// sum is the total of a NUMSUB reply's counts.
func sum(counts map[string]int64) int {
	var n int64
	for _, count := range counts {
		n += count
	}
	return int(n)
}
