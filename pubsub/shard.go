package pubsub

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/internal/keys"
)

// shard is one subscription connection and the entries of its channels.
//
// The connection is a go-redis PubSub. The shard replaces it as a whole when
// it fails (a new generation) instead of relying on go-redis's reconnect, so
// it always knows which confirmations are still to come: commands and
// messages of an older generation are ignored.
type shard struct {
	hub         *Hub
	rdb         redis.UniversalClient
	healthCheck time.Duration
	node        string // sharded: the master whose channels this carries

	mu      sync.Mutex
	closed  bool
	ps      *redis.PubSub
	gen     uint64
	live    chan struct{} // closed once a command went out on ps
	entries map[string]*entry
	queue   []command     // commands for the writer, in order
	kick    chan struct{} // tells the writer the queue is not empty
	// pending counts confirmations still to come on ps of the commands
	// written on it; progress is when the last one came, or when the first
	// of them was written. A connection that stays behind longer than
	// healthCheck has lost them and is replaced.
	pending  int
	progress time.Time
	// flights are the commands written on ps whose confirmations are
	// still to come, oldest first (shard_refused.go).
	flights []flight

	// probeCh is a channel of this connection's own on which the reader
	// publishes, through the ordinary client, every health-check interval;
	// a probe that does not come back means the connection hears another
	// server than the one releases are published on (a failover client
	// whose pub/sub connection stayed on the former master) or hears
	// nothing, and it is replaced (see overdue). Empty in sharded mode,
	// which pings. Probes are numbered: sent is the last one published,
	// at probeAt, heard the last one heard back; publishing: one is on its
	// way to the server.
	probeCh     string
	probeAt     time.Time
	sent, heard uint64
	publishing  bool
	// spread is how long the waiters of a resubscribed channel take, at
	// random, to retry (see replace).
	spread time.Duration
	// kept are the shares of channels dropped lately (share_kept.go).
	kept map[string]keptShare
}

// command is a SUBSCRIBE or UNSUBSCRIBE for the writer to send, or a
// PUBSUB NUMSUB of its one channel. An alone command is sent as it is,
// never coalesced with others (see refused).
type command struct {
	ps       *redis.PubSub
	gen      uint64
	unsub    bool
	numsub   bool
	alone    bool
	channels []string
}

func newShard(h *Hub, node string) *shard {
	s := &shard{
		probeCh:     h.probeChannel(node),
		hub:         h,
		rdb:         h.rdb,
		healthCheck: h.opt.HealthCheck,
		node:        node,
		entries:     make(map[string]*entry),
		kick:        make(chan struct{}, 1),
	}
	s.ps, s.live = s.newPubSub(), make(chan struct{})
	return s
}

// newPubSub returns a connection with no channels yet. It connects when
// its first command goes out, so in sharded mode it connects to the master
// of that command's channel: the reader waits for that (live) before it
// reads.
func (s *shard) newPubSub() *redis.PubSub {
	if s.node == "" {
		return s.rdb.Subscribe(s.hub.ctx)
	}
	ctx, cancel := context.WithTimeout(s.hub.ctx, s.healthCheck)
	defer cancel()
	if node := s.hub.router.nodeClient(ctx, s.node); node != nil {
		return node.SSubscribe(s.hub.ctx)
	}
	return s.rdb.SSubscribe(s.hub.ctx)
}

// sharded reports whether this shard uses sharded pub/sub.
func (s *shard) sharded() bool { return s.node != "" }

func (s *shard) close() {
	s.mu.Lock()
	s.closed = true
	ps := s.ps
	s.mu.Unlock()
	_ = ps.Close()
}

// join adds a waiter to channel's entry, subscribing when it is the first.
// It returns the channel that is closed once the subscription is confirmed.
func (s *shard) join(channel string) (*entry, <-chan struct{}, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, nil, ErrClosed
	}
	if s.probeCh != "" && s.entries[s.probeCh] == nil {
		p := newEntry(s.probeCh)
		p.q.join() // the shard's own, for good
		s.entries[s.probeCh] = p
		s.send(false, s.probeCh)
	}
	e := s.entries[channel]
	if e == nil {
		e = newEntry(channel)
		e.share = s.keptFor(channel)
		s.entries[channel] = e
		s.send(false, channel)
	}
	// An entry being unsubscribed is subscribed again when the server
	// confirms the UNSUBSCRIBE (see unsubscribed).
	e.q.join()
	return e, e.ready, nil
}

// leave removes a waiter from e; the last one unsubscribes. Called with mu held.
func (s *shard) leave(e *entry) {
	e.q.leave()
	if e.q.subs == 0 && e.state == subscribed {
		s.unsubscribe(e)
	}
	// An entry still subscribing is unsubscribed once confirmed.
}

// unsubscribe starts unsubscribing e, which has no waiters. Called with mu held.
func (s *shard) unsubscribe(e *entry) {
	e.state = unsubscribing
	e.ready = make(chan struct{})
	e.confirmed = false
	s.send(true, e.channel)
}

// send queues a command on the current connection. Called with mu held.
func (s *shard) send(unsub bool, channels ...string) {
	// Each channel with its presence marker (keys.Presence), whose
	// confirmations count as answers and find no entry; not the probe's.
	marked := make([]string, 0, 2*len(channels))
	for _, ch := range channels {
		marked = append(marked, ch)
		if ch != s.probeCh {
			marked = append(marked, keys.Presence(ch))
		}
	}
	s.queue = append(s.queue, command{ps: s.ps, gen: s.gen, unsub: unsub, channels: marked})
	select {
	case s.kick <- struct{}{}:
	default:
	}
}

// countPeers asks the server, in the background, how many connections
// subscribe to channel. Called with mu held.
func (s *shard) countPeers(channel string) {
	s.queue = append(s.queue, command{gen: s.gen, numsub: true, channels: []string{channel}})
	select {
	case s.kick <- struct{}{}:
	default:
	}
}

// writeLoop sends queued commands in order. A command that fails breaks its
// connection, which the reader then replaces.
func (s *shard) writeLoop() {
	ctx := s.hub.ctx
	for {
		select {
		case <-s.kick:
		case <-ctx.Done():
			return
		}
		s.mu.Lock()
		batch := s.coalesce(s.queue)
		s.queue = nil
		s.mu.Unlock()
		for _, c := range batch {
			if c.numsub {
				s.numsub(ctx, c.channels[0])
				continue
			}
			s.mu.Lock()
			stale := c.gen != s.gen
			if !stale {
				s.wrote(c)
			}
			s.mu.Unlock()
			if stale {
				continue
			}
			if err := s.write(ctx, c); err != nil {
				// Closing the connection makes the reader's Receive fail, and
				// the reader replaces it.
				_ = c.ps.Close()
			}
			s.mu.Lock()
			if c.gen == s.gen {
				select {
				case <-s.live:
				default:
					close(s.live)
				}
			}
			s.mu.Unlock()
		}
	}
}

// coalesce merges each run of queued SUBSCRIBE (or UNSUBSCRIBE) commands
// of one connection into one command, so that a burst of waiters on many
// lock names costs a few commands instead of one per name. Runs keep their
// order, so a channel's subscription and unsubscription stay in order; in
// sharded mode a run is also of one cluster slot, as a command's channels
// must be. Called with mu held.
func (s *shard) coalesce(queue []command) []command {
	var out []command
	for _, c := range queue {
		if n := len(out); n > 0 && !c.numsub {
			last := &out[n-1]
			if !last.numsub && !last.alone && !c.alone && last.ps == c.ps && last.gen == c.gen && last.unsub == c.unsub &&
				(!s.sharded() || keys.Slot(last.channels[0]) == keys.Slot(c.channels[0])) {
				last.channels = append(last.channels, c.channels...)
				continue
			}
		}
		// A copy: appending must not write into the queued command's array.
		c.channels = slices.Clone(c.channels)
		out = append(out, c)
	}
	return out
}

// write sends one SUBSCRIBE or UNSUBSCRIBE (sharded: SSUBSCRIBE or
// SUNSUBSCRIBE, whose channels coalesce keeps in one slot).
func (s *shard) write(ctx context.Context, c command) error {
	if !s.sharded() {
		if c.unsub {
			return c.ps.Unsubscribe(ctx, c.channels...)
		}
		return c.ps.Subscribe(ctx, c.channels...)
	}
	if c.unsub {
		return c.ps.SUnsubscribe(ctx, c.channels...)
	}
	return c.ps.SSubscribe(ctx, c.channels...)
}
