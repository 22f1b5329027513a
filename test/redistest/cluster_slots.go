package redistest

import (
	"cmp"
	"context"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// The slot map of a Cluster: which master serves which hash slots, as
// started and as the nodes report it after a failover.

// slotRange is the inclusive range of slots that master i serves.
func (c *Cluster) slotRange(i int) (lo, hi int) {
	return i * clusterSlots / c.masters, (i+1)*clusterSlots/c.masters - 1
}

// masterIndex is the index in c.nodes of the master that node i, a
// replica, follows.
func (c *Cluster) masterIndex(i int) int {
	return (i - c.masters) / c.perMaster
}

// wantSlots is the slot map, as slotMap writes it, of the cluster as
// started.
func (c *Cluster) wantSlots() string {
	slots := make([]SlotRange, c.masters)
	for i := range slots {
		lo, hi := c.slotRange(i)
		slots[i] = SlotRange{Start: lo, End: hi, Master: c.nodes[i].Addr}
	}
	for i := c.masters; i < len(c.nodes); i++ {
		m := c.masterIndex(i)
		slots[m].Replicas = append(slots[m].Replicas, c.nodes[i].Addr)
	}
	return slotMap(slots)
}

// slotMap writes a slot map in a canonical form, one "start-end master
// replica..." per range in slot order, replicas sorted, so that two nodes'
// views compare as strings.
func slotMap(slots []SlotRange) string {
	slots = slices.Clone(slots)
	slices.SortFunc(slots, func(a, b SlotRange) int { return cmp.Compare(a.Start, b.Start) })
	var b strings.Builder
	for _, s := range slots {
		if b.Len() > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "%d-%d %s", s.Start, s.End, s.Master)
		replicas := slices.Clone(s.Replicas)
		slices.Sort(replicas)
		for _, r := range replicas {
			fmt.Fprintf(&b, " %s", r)
		}
	}
	return b.String()
}

// SlotRange is a range of a cluster's slots, as one node sees it: the
// host:port of the master that serves it and of that master's replicas.
type SlotRange struct {
	Start, End int
	Master     string
	Replicas   []string
}

// shardRanges reads rdb's view of the cluster (CLUSTER SHARDS) as slot
// ranges; nodes that rdb sees failed are left out. A Redis before 7.0,
// which has no CLUSTER SHARDS, is read with CLUSTER SLOTS.
func shardRanges(ctx context.Context, rdb *redis.Client) ([]SlotRange, error) {
	shards, err := rdb.ClusterShards(ctx).Result()
	if err != nil && strings.Contains(err.Error(), "Unknown subcommand") {
		return slotsRanges(ctx, rdb)
	}
	if err != nil {
		return nil, err
	}
	var out []SlotRange
	for _, sh := range shards {
		var r SlotRange
		for _, n := range sh.Nodes {
			if n.Health == "fail" {
				continue
			}
			addr := net.JoinHostPort(n.IP, strconv.FormatInt(n.Port, 10))
			if n.Role == "master" {
				r.Master = addr
			} else {
				r.Replicas = append(r.Replicas, addr)
			}
		}
		for _, sr := range sh.Slots {
			if r.Master != "" {
				out = append(out, SlotRange{Start: int(sr.Start), End: int(sr.End), Master: r.Master, Replicas: r.Replicas})
			}
		}
	}
	return out, nil
}

// slotsRanges is shardRanges from CLUSTER SLOTS, which lists a range's
// master first, then its replicas.
func slotsRanges(ctx context.Context, rdb *redis.Client) ([]SlotRange, error) {
	//lint:ignore SA1019 Redis 6.2 has no CLUSTER SHARDS, which ClusterSlots's deprecation names
	slots, err := rdb.ClusterSlots(ctx).Result()
	if err != nil {
		return nil, err
	}
	out := make([]SlotRange, 0, len(slots))
	for _, s := range slots {
		if len(s.Nodes) == 0 {
			continue
		}
		r := SlotRange{Start: s.Start, End: s.End, Master: s.Nodes[0].Addr}
		for _, n := range s.Nodes[1:] {
			r.Replicas = append(r.Replicas, n.Addr)
		}
		out = append(out, r)
	}
	return out, nil
}

// MasterOf returns the host:port of the master that now serves key's slot,
// as the first node that answers sees it, or "" if no node answers.
func (c *Cluster) MasterOf(key string) (addr string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, s := range c.nodes {
		rdb := redis.NewClient(adminOptions(s.Addr))
		slot, err := rdb.ClusterKeySlot(ctx, key).Result()
		var slots []SlotRange
		if err == nil {
			slots, err = shardRanges(ctx, rdb)
		}
		_ = rdb.Close()
		if err != nil {
			continue
		}
		for _, r := range slots {
			if int64(r.Start) <= slot && slot <= int64(r.End) {
				return r.Master
			}
		}
	}
	return ""
}

// Slots returns the slot map as the first node that answers sees it.
func (c *Cluster) Slots(ctx context.Context) ([]SlotRange, error) {
	var lastErr error
	for _, s := range c.nodes {
		rdb := redis.NewClient(adminOptions(s.Addr))
		slots, err := shardRanges(ctx, rdb)
		_ = rdb.Close()
		if err == nil {
			return slots, nil
		}
		lastErr = err
	}
	return nil, fmt.Errorf("no node answers CLUSTER SHARDS: %w", lastErr)
}
