package pubsub

import (
	"context"
	"sync"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/internal/keys"
)

// numsub stores in channel's entry the number of connections subscribed
// to it, and how many of them are not relock Clients (they do not
// subscribe to its presence marker, keys.Presence). On failure the entry
// keeps what it had.
func (s *shard) numsub(ctx context.Context, channel string) {
	n, err := s.countSubscribers(ctx, channel)
	if err != nil {
		return
	}
	relock, err := s.countSubscribers(ctx, keys.Presence(channel))
	if err != nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if e := s.entries[channel]; e != nil {
		e.share.counted(n, max(n-relock, 0))
	}
}

// countSubscribers asks how many connections subscribe to channel. On a
// cluster, classic subscriptions are spread over every node and each node
// counts its own; sharded ones all live on the channel's master.
func (s *shard) countSubscribers(ctx context.Context, channel string) (int, error) {
	cc, cluster := s.rdb.(*redis.ClusterClient)
	switch {
	case s.sharded():
		master, err := cc.MasterForKey(ctx, channel)
		if err != nil {
			return 0, err
		}
		n, err := master.PubSubShardNumSub(ctx, channel).Result()
		return int(n[channel]), err
	case cluster:
		var mu sync.Mutex
		total := 0
		err := cc.ForEachShard(ctx, func(ctx context.Context, node *redis.Client) error {
			n, err := node.PubSubNumSub(ctx, channel).Result()
			mu.Lock()
			total += int(n[channel])
			mu.Unlock()
			return err
		})
		return total, err
	}
	n, err := s.rdb.PubSubNumSub(ctx, channel).Result()
	return int(n[channel]), err
}
