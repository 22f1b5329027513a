package pubsub

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/internal/keys"
)

var (
	// ErrClosed is returned by Subscribe and Wait once the Hub is closed.
	ErrClosed = errors.New("pubsub: hub closed")
	// ErrMoved is returned by Wait when the channel's slot moved to another
	// master (sharded pub/sub): the Subscription hears nothing more, and
	// the caller should close it and subscribe again.
	ErrMoved = errors.New("pubsub: the channel moved to another master; subscribe again")
)

// Options tune a Hub. The zero value selects the defaults.
type Options struct {
	// Connections is the number of subscription connections that channels
	// are spread over. Default 1.
	Connections int
	// HealthCheck is how long a connection may stay silent before it is
	// pinged; a connection that then stays silent as long again is replaced.
	// Default 3s.
	HealthCheck time.Duration
	// Sharded subscribes with SSUBSCRIBE, Redis 7's sharded pub/sub, on a
	// Redis Cluster (rdb must be a *redis.ClusterClient): each channel on
	// the master that serves its slot, one connection per such master, so
	// that a release published with SPUBLISH reaches only that master's
	// subscribers instead of every node. Connections is then ignored.
	Sharded bool
	// OnReplace, if set, is called by a connection's reader goroutine when
	// it replaced the connection: why tells what failed (its error, or that
	// it fell silent), channels how many channels the new connection
	// subscribes again. It must return quickly.
	OnReplace func(channels int, why error)
}

// Hub multiplexes the channel subscriptions of many waiters over a few
// Redis connections. It is safe for concurrent use.
type Hub struct {
	rdb redis.UniversalClient
	opt Options
	id  string // names the probe channels

	router router // sharded: which master carries a channel

	mu     sync.Mutex
	closed bool
	shards []*shard          // classic: fixed; sharded: one per master, in creation order
	nodes  map[string]*shard // sharded: by master address

	ctx    context.Context // cancelled by Close
	cancel context.CancelFunc
	once   sync.Once
	wg     sync.WaitGroup
}

// New starts a Hub that subscribes through rdb. Close must be called to stop
// its goroutines; rdb stays open.
func New(rdb redis.UniversalClient, opt Options) *Hub {
	if opt.Connections <= 0 {
		opt.Connections = 1
	}
	if opt.HealthCheck <= 0 {
		opt.HealthCheck = 3 * time.Second
	}
	ctx, cancel := context.WithCancel(context.Background())
	h := &Hub{rdb: rdb, opt: opt, id: uuid.NewString(), ctx: ctx, cancel: cancel, nodes: make(map[string]*shard), router: router{rdb: rdb}}
	if !opt.Sharded {
		for range opt.Connections {
			h.start("")
		}
	}
	return h
}

// start adds a shard, for the master at node in sharded mode, and starts
// its goroutines. Called with mu held, or before the Hub is shared.
func (h *Hub) start(node string) *shard {
	s := newShard(h, node)
	h.shards = append(h.shards, s)
	if node != "" {
		h.nodes[node] = s
	}
	h.wg.Add(2)
	go func() { defer h.wg.Done(); s.readLoop() }()
	go func() { defer h.wg.Done(); s.writeLoop() }()
	return s
}

// Close stops the Hub: its connections close, blocked Subscribe and Wait
// calls return ErrClosed, and every goroutine of the Hub has exited when
// Close returns. Closing twice is a no-op.
func (h *Hub) Close() error {
	h.once.Do(func() {
		h.cancel()
		h.mu.Lock()
		h.closed = true
		shards := h.shards
		h.mu.Unlock()
		for _, s := range shards {
			s.close()
		}
		h.wg.Wait()
	})
	return nil
}

// shardFor returns the shard that carries channel: in sharded mode the one
// of the master serving the channel's slot, started if need be.
func (h *Hub) shardFor(ctx context.Context, channel string) (*shard, error) {
	if !h.opt.Sharded {
		if len(h.shards) == 1 {
			return h.shards[0], nil
		}
		f := fnv.New32a()
		_, _ = f.Write([]byte(channel))
		return h.shards[f.Sum32()%uint32(len(h.shards))], nil
	}
	node, err := h.router.nodeOf(ctx, channel)
	if err != nil {
		return nil, err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil, ErrClosed
	}
	if s := h.nodes[node]; s != nil {
		return s, nil
	}
	return h.start(node), nil
}

// existingShard returns the shard that carries channel if it has been
// started; in sharded mode, without asking the cluster where the channel
// lives: any shard that has an entry for it.
func (h *Hub) existingShard(channel string) *shard {
	if !h.opt.Sharded {
		s, _ := h.shardFor(h.ctx, channel)
		return s
	}
	for _, s := range h.allShards() {
		s.mu.Lock()
		_, ok := s.entries[channel]
		s.mu.Unlock()
		if ok {
			return s
		}
	}
	return nil
}

// probeChannel names the probe channel of a new classic shard ("" in
// sharded mode). It lies under the lock channels' prefix, so a Redis user
// limited to those channels may use it. Called with mu held, or before the
// Hub is shared.
func (h *Hub) probeChannel(node string) string {
	if node != "" {
		return ""
	}
	return fmt.Sprintf("%s:%s:%d", keys.Channel("relock-probe"), h.id, len(h.shards))
}

// allShards returns the shards started so far.
func (h *Hub) allShards() []*shard {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]*shard(nil), h.shards...)
}

// Subscribe joins the waiters of channel and returns once the server has
// confirmed the subscription, so that every message published afterwards
// reaches the returned Subscription. The caller must Close it. On ctx's end
// it returns ctx.Err() and leaves no subscription behind (a ctx ended
// already: always, however soon the server would confirm); when the server
// refuses the channel (an ACL), an error wrapping ErrRefused and the
// server's.
func (h *Hub) Subscribe(ctx context.Context, channel string) (*Subscription, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s, err := h.shardFor(ctx, channel)
	if err != nil {
		return nil, err
	}
	e, ready, err := s.join(channel)
	if err != nil {
		return nil, err
	}
	sub := &Subscription{shard: s, entry: e}
	select {
	case <-ready:
		s.mu.Lock()
		err := e.err
		s.mu.Unlock()
		if err != nil {
			sub.Close()
			return nil, err
		}
		return sub, nil
	case <-ctx.Done():
		sub.Close()
		return nil, ctx.Err()
	case <-h.ctx.Done():
		sub.Close()
		return nil, ErrClosed
	}
}

// JoinBehind joins channel's entry, without any round trip, if it is
// subscribed and has waiters, so that the caller can wait its turn behind
// them instead of competing with them: its first Wait sleeps at the back
// and leaves any pending wake-up to the waiters that were there first. It
// returns the Subscription and the time by which every current sleeper
// will have retried, or ok == false (and no Subscription) if there is
// nobody to wait behind.
func (h *Hub) JoinBehind(channel string) (sub *Subscription, due time.Time, ok bool) {
	s := h.existingShard(channel)
	if s == nil {
		return nil, time.Time{}, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.entries[channel]
	if s.closed || e == nil || e.state != subscribed || e.q.subs == 0 {
		return nil, time.Time{}, false
	}
	e.q.join()
	return &Subscription{shard: s, entry: e, behind: true}, e.q.wakeBy, true
}

// pause waits until c fires (nil), ctx ends (ctx.Err()) or the Hub closes
// (ErrClosed).
func (h *Hub) pause(ctx context.Context, c <-chan time.Time) error {
	select {
	case <-c:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-h.ctx.Done():
		return ErrClosed
	}
}

// Stats describes a Hub's subscriptions at one moment.
type Stats struct {
	// Connections is the number of subscription connections.
	Connections int
	// Channels is the number of channels subscribed or being subscribed.
	Channels int
	// Subscriptions is the number of open Subscriptions.
	Subscriptions int
	// Sleeping is the number of Subscriptions asleep in Wait.
	Sleeping int
}

// Stats reports the Hub's current subscriptions.
func (h *Hub) Stats() Stats {
	shards := h.allShards()
	st := Stats{Connections: len(shards)}
	for _, s := range shards {
		s.mu.Lock()
		for _, e := range s.entries {
			if e.channel == s.probeCh {
				continue
			}
			st.Channels++
			st.Subscriptions += e.q.subs
			st.Sleeping += e.q.asleep()
		}
		s.mu.Unlock()
	}
	return st
}
