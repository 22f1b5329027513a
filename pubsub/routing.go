package pubsub

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/internal/keys"
)

// router finds, in sharded mode, the master that serves a channel's slot,
// from its own copy of the cluster's slot map: fetched when first needed
// and again after a subscription was told its slot moved, so that a
// channel is subscribed again on its new master even while go-redis's own
// map is still the old one.
type router struct {
	rdb   redis.UniversalClient
	moved atomic.Bool // a sharded subscription was told its slot moved

	mu     sync.Mutex
	ranges []slotRange       // nil until fetched
	gone   map[string]string // channel -> the node it was told to leave
}

// slotRange is a range of slots and the address of its master.
type slotRange struct {
	start, end int
	master     string
}

// left records that channel was told to leave node: its slot moved.
func (r *router) left(channel, node string) {
	r.moved.Store(true)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.gone == nil {
		r.gone = make(map[string]string)
	}
	r.gone[channel] = node
}

// nodeOf is the address of the master that serves channel's slot. The node
// the channel just left is not its master any more, even if the cluster's
// view has not caught up yet: it asks again a little later, for a while.
func (r *router) nodeOf(ctx context.Context, channel string) (string, error) {
	cc, ok := r.rdb.(*redis.ClusterClient)
	if !ok {
		return "", fmt.Errorf("pubsub: sharded pub/sub needs a *redis.ClusterClient, not %T", r.rdb)
	}
	r.mu.Lock()
	ranges, left := r.ranges, r.gone[channel]
	delete(r.gone, channel)
	r.mu.Unlock()
	slot := keys.Slot(channel)
	for attempt := 0; ; attempt++ {
		if ranges == nil || r.moved.Load() || attempt > 0 {
			r.moved.Store(false)
			fresh, err := fetchRanges(ctx, cc)
			if err != nil {
				return "", fmt.Errorf("pubsub: cluster slot map: %w", err)
			}
			r.mu.Lock()
			r.ranges, ranges = fresh, fresh
			r.mu.Unlock()
		}
		master := ""
		for _, sr := range ranges {
			if sr.start <= slot && slot <= sr.end {
				master = sr.master
			}
		}
		if master != "" && (master != left || attempt >= 20) {
			return master, nil
		}
		if master == "" && attempt >= 20 {
			return "", fmt.Errorf("pubsub: no master serves the slot of %q", channel)
		}
		select {
		case <-time.After(50 * time.Millisecond):
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}
}

// fetchRanges reads the cluster's slot map: CLUSTER SHARDS where the
// server has it (Redis 7), CLUSTER SLOTS before.
func fetchRanges(ctx context.Context, cc *redis.ClusterClient) ([]slotRange, error) {
	shards, err := cc.ClusterShards(ctx).Result()
	if err == nil {
		var out []slotRange
		for _, sh := range shards {
			master := ""
			for _, n := range sh.Nodes {
				if n.Role == "master" {
					host := n.IP
					if host == "" {
						host = n.Endpoint
					}
					master = net.JoinHostPort(host, strconv.FormatInt(n.Port, 10))
				}
			}
			for _, sr := range sh.Slots {
				if master != "" {
					out = append(out, slotRange{int(sr.Start), int(sr.End), master})
				}
			}
		}
		return out, nil
	}
	if !strings.Contains(strings.ToLower(err.Error()), "unknown subcommand") {
		return nil, err
	}
	//lint:ignore SA1019 CLUSTER SLOTS serves servers older than Redis 7, which lack CLUSTER SHARDS.
	slots, err := cc.ClusterSlots(ctx).Result()
	if err != nil {
		return nil, err
	}
	out := make([]slotRange, 0, len(slots))
	for _, s := range slots {
		if len(s.Nodes) > 0 {
			out = append(out, slotRange{s.Start, s.End, s.Nodes[0].Addr})
		}
	}
	return out, nil
}

// nodeClient is go-redis's client of the cluster node at addr, on which a
// shard subscribes so that its connection goes to that node whatever
// go-redis's slot map says; nil if go-redis does not know the node (yet).
func (r *router) nodeClient(ctx context.Context, addr string) *redis.Client {
	cc, ok := r.rdb.(*redis.ClusterClient)
	if !ok {
		return nil
	}
	var mu sync.Mutex
	var found *redis.Client
	_ = cc.ForEachShard(ctx, func(_ context.Context, c *redis.Client) error {
		if c.Options().Addr == addr {
			mu.Lock()
			found = c
			mu.Unlock()
		}
		return nil
	})
	return found
}
