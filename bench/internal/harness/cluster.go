package harness

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/bench/internal/redisstats"
	"github.com/relock-go/relock/rlock"
)

// ClusterLocks describes a run on a Redis Cluster: Locks locks, spread over
// the masters by the slots of their names, each contended by Waiters
// goroutines spread over Clients relock Clients (each its own go-redis
// cluster client, as separate processes would be). Every goroutine holds
// its lock for Hold and locks again right after it unlocks. Sharded picks
// the Clients' pub/sub: sharded (SSUBSCRIBE, SPUBLISH) or classic
// (SUBSCRIBE, PUBLISH).
type ClusterLocks struct {
	// Addrs are seed nodes of the cluster.
	Addrs   []string
	Sharded bool
	Locks   int
	Waiters int
	Clients int
	Hold    time.Duration
	// Warmup runs before the measured Duration; it is not counted.
	Warmup   time.Duration
	Duration time.Duration
}

// ClusterResult is what one ClusterLocks run measured inside its window.
type ClusterResult struct {
	// PubSub is "classic" or "sharded".
	PubSub  string  `json:"pubsub"`
	Locks   int     `json:"locks"`
	Waiters int     `json:"waiters_per_lock"`
	Clients int     `json:"clients"`
	HoldMs  float64 `json:"hold_ms"`
	Seconds float64 `json:"seconds"`

	Acquisitions int64   `json:"acquisitions"`
	PerSecond    float64 `json:"acquisitions_per_second"`
	// Wait includes the waits cut off by the end of the run (WaitsCut of them).
	Wait     Quantiles `json:"wait"`
	WaitsCut int       `json:"waits_cut"`
	// Starved goroutines made no acquisition in the window.
	Starved int `json:"starved"`
	// Rewins is the share of acquisitions won by the goroutine that
	// released that lock last.
	Rewins        float64 `json:"rewin_share"`
	ClientCmdsPer float64 `json:"client_commands_per_acquisition"`
	SubscribesPer float64 `json:"subscribe_commands_per_acquisition"`
	ServerCmdsPer float64 `json:"server_commands_per_acquisition"`
	// Publishes is the PUBLISH and SPUBLISH commands run, on all nodes.
	Publishes int64 `json:"publishes"`
	// BusPublishes is the publish messages the nodes sent each other over
	// the cluster bus.
	BusPublishes int64 `json:"bus_publish_messages"`
	// Received is the release messages the nodes handled, all nodes
	// together (see ClusterNode.Received); ReceivedPer per acquisition.
	Received    int64   `json:"messages_received"`
	ReceivedPer float64 `json:"messages_received_per_acquisition"`
	// SubscriptionConns is the client connections holding subscriptions,
	// all nodes together, in the middle of the window.
	SubscriptionConns int           `json:"subscription_connections"`
	Nodes             []ClusterNode `json:"nodes"`
	Violations        int64         `json:"violations"`
	Errors            int64         `json:"errors"`
	FirstError        string        `json:"first_error,omitempty"`
}

// Run runs the scenario.
func (c ClusterLocks) Run(ctx context.Context) (ClusterResult, error) {
	mode := "classic"
	if c.Sharded {
		mode = "sharded"
	}
	r := ClusterResult{PubSub: mode, Locks: c.Locks, Waiters: c.Waiters, Clients: c.Clients, HoldMs: ms(c.Hold), Seconds: c.Duration.Seconds()}
	admin := redis.NewClusterClient(&redis.ClusterOptions{Addrs: c.Addrs})
	defer admin.Close()
	masters, err := clusterMasters(ctx, admin)
	if err != nil {
		return r, err
	}
	nodes := make([]*redis.Client, len(masters))
	for i, m := range masters {
		nodes[i] = redis.NewClient(&redis.Options{Addr: m.Addr})
		defer nodes[i].Close()
	}

	k := max(1, c.Clients)
	counters := make([]*redisstats.Counter, k)
	clients := make([]*rlock.Client, k)
	for i := range k {
		rdb, counter := redisstats.NewClusterClient(c.Addrs)
		defer rdb.Close()
		cl, err := rlock.New(rdb, rlock.WithShardedPubSub(c.Sharded))
		if err != nil {
			return r, err
		}
		defer cl.Close()
		counters[i], clients[i] = counter, cl
	}

	// Each lock's master, found by its slot.
	prefix := fmt.Sprintf("bench:cluster:%s:%d:", mode, time.Now().UnixNano())
	names := make([]string, c.Locks)
	home := make([]int, c.Locks)
	for i := range names {
		names[i] = fmt.Sprintf("%s%d", prefix, i)
		node, err := admin.MasterForKey(ctx, names[i])
		if err != nil {
			return r, err
		}
		home[i] = slices.IndexFunc(masters, func(m ClusterNode) bool { return m.Addr == node.Options().Addr })
		if home[i] < 0 {
			return r, fmt.Errorf("lock %s: master %s not in CLUSTER SLOTS", names[i], node.Options().Addr)
		}
		masters[home[i]].Locks++
	}

	start := time.Now()
	from := start.Add(c.Warmup)
	to := from.Add(c.Duration)
	recs := make([]*recorder, c.Locks)
	runCtx, cancel := context.WithDeadline(ctx, to)
	defer cancel()
	var wg sync.WaitGroup
	for i, name := range names {
		recs[i] = newRecorder(c.Waiters, k, from, to)
		for w := range c.Waiters {
			client := (i + w) % k
			l := clients[client].NewMutex(name)
			wg.Add(1)
			go func() {
				defer wg.Done()
				// Hundreds of locks are held at once: Go's sleep parks
				// their holders (parkFor), where a kernel sleep each
				// (holdFor) would block as many threads. Both kinds of
				// pub/sub sleep alike.
				lockLoop(runCtx, recs[i], l, w, client, c.Hold, parkFor)
			}()
		}
	}

	snap := func() (redisstats.Counts, []nodeStats, error) {
		var sum redisstats.Counts
		for _, ct := range counters {
			sum = sum.Add(ct.Snapshot())
		}
		stats := make([]nodeStats, len(nodes))
		for i, n := range nodes {
			var err error
			if stats[i], err = snapNode(ctx, n); err != nil {
				return sum, nil, err
			}
		}
		return sum, stats, nil
	}
	var cli0, cli1 redisstats.Counts
	var srv0, srv1 []nodeStats
	var err0, err1, errMid error
	if sleepUntil(ctx, from) {
		cli0, srv0, err0 = snap()
	}
	if sleepUntil(ctx, from.Add(c.Duration/2)) {
		for i, n := range nodes {
			var err error
			masters[i].SubscriptionConns, err = redisstats.SubscribedConnections(ctx, n)
			errMid = errors.Join(errMid, err)
		}
	}
	if sleepUntil(ctx, to) {
		cli1, srv1, err1 = snap()
	}
	wg.Wait()
	if err := errors.Join(err0, errMid, err1, ctx.Err()); err != nil {
		return r, err
	}

	// The locks' recorders, summed.
	var waits []time.Duration
	var rewins int64
	nodeRewins := make([]int64, len(masters))
	for i, rec := range recs {
		rec.mu.Lock()
		r.Acquisitions += rec.acquisitions
		masters[home[i]].Acquisitions += rec.acquisitions
		r.Violations += rec.violations
		r.Errors += rec.errors
		if rec.firstError != nil && r.FirstError == "" {
			r.FirstError = rec.firstError.Error()
		}
		waits = append(waits, rec.waits...)
		r.WaitsCut += rec.cut
		rewins += rec.rewins
		nodeRewins[home[i]] += rec.rewins
		for _, a := range rec.perGoroutine {
			if a == 0 {
				r.Starved++
				masters[home[i]].Starved++
			}
		}
		rec.mu.Unlock()
	}
	n := float64(r.Acquisitions)
	r.PerSecond = n / c.Duration.Seconds()
	r.Wait = summarise(waits)
	r.Rewins = ratio(float64(rewins), n)

	var subscribes, serverCmds int64
	for i := range masters {
		m := &masters[i]
		d := srv1[i].calls.Sub(srv0[i].calls)
		m.Publish, m.SPublish = d["publish"], d["spublish"]
		m.BusSent, m.BusReceived = srv1[i].busSent-srv0[i].busSent, srv1[i].busRcv-srv0[i].busRcv
		m.Received = m.Publish + m.SPublish + m.BusReceived
		m.ReceivedPer = ratio(float64(m.Received), n)
		m.Rewins = ratio(float64(nodeRewins[i]), float64(m.Acquisitions))
		m.OutputKiBPerSec = float64(srv1[i].output-srv0[i].output) / 1024 / c.Duration.Seconds()
		m.ServerCmds = d.Total()
		subscribes += d.PubSub()
		serverCmds += m.ServerCmds
		r.Publishes += m.Publish + m.SPublish
		r.BusPublishes += m.BusSent
		r.Received += m.Received
		r.SubscriptionConns += m.SubscriptionConns
	}
	r.Nodes = masters
	r.ReceivedPer = ratio(float64(r.Received), n)
	r.ClientCmdsPer = ratio(float64(cli1.Sub(cli0).Commands+subscribes), n)
	r.SubscribesPer = ratio(float64(subscribes), n)
	r.ServerCmdsPer = ratio(float64(serverCmds), n)
	return r, nil
}
