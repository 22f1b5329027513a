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
	n, relock, err := s.countSubscribers(ctx, channel)
	if err != nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if e := s.entries[channel]; e != nil {
		e.share.counted(n, max(n-relock, 0))
	}
}

// countSubscribers asks how many connections subscribe to channel, and to
// its presence marker, in one command per node, so that the two counts
// are of one moment: a Client subscribes to both in one command. On a
// cluster, classic subscriptions are spread over every node and each node
// counts its own; sharded ones all live on the channel's master.
func (s *shard) countSubscribers(ctx context.Context, channel string) (n, relock int, err error) {
	marker := keys.Presence(channel)
	cc, cluster := s.rdb.(*redis.ClusterClient)
	switch {
	case s.sharded():
		master, err := cc.MasterForKey(ctx, channel)
		if err != nil {
			return 0, 0, err
		}
		counts, err := master.PubSubShardNumSub(ctx, channel, marker).Result()
		return int(counts[channel]), int(counts[marker]), err
	case cluster:
		var mu sync.Mutex
		err := cc.ForEachShard(ctx, func(ctx context.Context, node *redis.Client) error {
			counts, err := node.PubSubNumSub(ctx, channel, marker).Result()
			mu.Lock()
			n += int(counts[channel])
			relock += int(counts[marker])
			mu.Unlock()
			return err
		})
		return n, relock, err
	}
	counts, err := s.rdb.PubSubNumSub(ctx, channel, marker).Result()
	return int(counts[channel]), int(counts[marker]), err
}
