package harness

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"strconv"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/bench/internal/redisstats"
)

// ClusterNode is what one master did during the window.
type ClusterNode struct {
	Addr  string `json:"addr"`
	Slots string `json:"slots"`
	// Locks is how many of the run's locks live on this master, and
	// Acquisitions how often they were acquired.
	Locks        int   `json:"locks"`
	Acquisitions int64 `json:"acquisitions"`
	// Rewins is the share of those acquisitions won by the goroutine that
	// released the lock last, and Starved the goroutines of those locks
	// that made no acquisition.
	Rewins  float64 `json:"rewin_share"`
	Starved int     `json:"starved"`
	// Publish and SPublish are the commands the node ran (inside the
	// unlock scripts).
	Publish  int64 `json:"publish"`
	SPublish int64 `json:"spublish"`
	// BusSent and BusReceived are cluster bus messages carrying a publish
	// (CLUSTER INFO cluster_stats_messages_publish_* and publishshard_*).
	BusSent     int64 `json:"bus_publish_sent"`
	BusReceived int64 `json:"bus_publish_received"`
	// Received is Publish + SPublish + BusReceived: every release message
	// the node had to match against its subscribers. ReceivedPer is that
	// per acquisition of the whole cluster.
	Received    int64   `json:"messages_received"`
	ReceivedPer float64 `json:"messages_received_per_acquisition"`
	// OutputKiBPerSec is the node's output to its clients (INFO stats
	// total_net_output_bytes): replies and delivered messages.
	OutputKiBPerSec float64 `json:"net_output_kib_per_second"`
	ServerCmds      int64   `json:"server_commands"`
	// SubscriptionConns is the client connections holding subscriptions on
	// this node, in the middle of the window.
	SubscriptionConns int `json:"subscription_connections"`
}

// nodeStats is one snapshot of a node's counters.
type nodeStats struct {
	calls           redisstats.Calls
	busSent, busRcv int64
	output          int64
}

// clusterMasters returns the cluster's masters, in slot order, each with
// the slots it serves.
func clusterMasters(ctx context.Context, admin *redis.ClusterClient) ([]ClusterNode, error) {
	shards, err := admin.ClusterShards(ctx).Result()
	if err != nil {
		return nil, err
	}
	type served struct {
		start int64
		node  ClusterNode
	}
	var all []served
	for _, sh := range shards {
		var n ClusterNode
		var first int64 = -1
		for _, node := range sh.Nodes {
			if node.Role == "master" {
				n.Addr = net.JoinHostPort(node.IP, strconv.FormatInt(node.Port, 10))
			}
		}
		for _, r := range sh.Slots {
			if n.Slots != "" {
				n.Slots += ","
			}
			n.Slots += fmt.Sprintf("%d-%d", r.Start, r.End)
			if first < 0 || r.Start < first {
				first = r.Start
			}
		}
		if n.Addr != "" && first >= 0 {
			all = append(all, served{first, n})
		}
	}
	slices.SortFunc(all, func(a, b served) int { return cmp.Compare(a.start, b.start) })
	var masters []ClusterNode
	for _, s := range all {
		masters = append(masters, s.node)
	}
	if len(masters) == 0 {
		return nil, errors.New("CLUSTER SHARDS: no master serves a slot")
	}
	return masters, nil
}

// snapNode reads a node's command calls, cluster bus publish messages and
// client output bytes.
func snapNode(ctx context.Context, node *redis.Client) (nodeStats, error) {
	var s nodeStats
	var err error
	if s.calls, err = redisstats.CommandCalls(ctx, node); err != nil {
		return s, err
	}
	bus, err := redisstats.ClusterInfo(ctx, node)
	if err != nil {
		return s, err
	}
	s.busSent = int64(bus["cluster_stats_messages_publish_sent"] + bus["cluster_stats_messages_publishshard_sent"])
	s.busRcv = int64(bus["cluster_stats_messages_publish_received"] + bus["cluster_stats_messages_publishshard_received"])
	stats, err := redisstats.Info(ctx, node, "stats")
	if err != nil {
		return s, err
	}
	s.output = int64(stats["total_net_output_bytes"])
	return s, nil
}
