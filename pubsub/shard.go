package pubsub

import (
	"context"
	"errors"
	"net"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/internal/backoff"
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
	// pending counts confirmations still to come on ps; progress is when
	// the last one came, or when the first of them was asked for. A
	// connection that stays behind longer than healthCheck has lost them
	// and is replaced.
	pending  int
	progress time.Time

	// probe is a channel of this connection's own on which the reader
	// publishes, through the ordinary client, every health-check interval;
	// a probe that does not come back means the connection hears another
	// server than the one releases are published on (a failover client
	// whose pub/sub connection stayed on the former master) or hears
	// nothing, and it is replaced. Empty in sharded mode, which pings.
	// probeSent and probing belong to the reader goroutine.
	probe     string
	probeSent time.Time
	probing   bool
}

// command is a SUBSCRIBE or UNSUBSCRIBE for the writer to send, or a
// PUBSUB NUMSUB of its one channel.
type command struct {
	ps       *redis.PubSub
	gen      uint64
	unsub    bool
	numsub   bool
	channels []string
}

func newShard(h *Hub, node string) *shard {
	s := &shard{
		probe:       h.probeChannel(node),
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
	if node := s.hub.nodeClient(ctx, s.node); node != nil {
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
	if s.probe != "" && s.entries[s.probe] == nil {
		p := newEntry(s.probe)
		p.refs = 1 // the shard's own, for good
		s.entries[s.probe] = p
		s.send(false, s.probe)
	}
	e := s.entries[channel]
	if e == nil {
		e = newEntry(channel)
		s.entries[channel] = e
		s.send(false, channel)
	}
	// An entry being unsubscribed is subscribed again when the server
	// confirms the UNSUBSCRIBE (see unsubscribed).
	e.refs++
	return e, e.ready, nil
}

// leave removes a waiter from e; the last one unsubscribes. Called with mu held.
func (s *shard) leave(e *entry) {
	e.refs--
	e.permits = min(e.permits, e.refs)
	if e.refs == 0 && e.state == subscribed {
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
	if s.pending == 0 {
		s.progress = time.Now()
	}
	s.pending += len(channels)
	s.queue = append(s.queue, command{ps: s.ps, gen: s.gen, unsub: unsub, channels: channels})
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
		batch := s.queue
		s.queue = nil
		s.mu.Unlock()
		for _, c := range batch {
			if c.numsub {
				s.numsub(ctx, c.channels[0])
				continue
			}
			s.mu.Lock()
			stale := c.gen != s.gen
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

// write sends one SUBSCRIBE or UNSUBSCRIBE (sharded: one per channel, as
// the channels of one command must share a slot).
func (s *shard) write(ctx context.Context, c command) error {
	if !s.sharded() {
		if c.unsub {
			return c.ps.Unsubscribe(ctx, c.channels...)
		}
		return c.ps.Subscribe(ctx, c.channels...)
	}
	for _, ch := range c.channels {
		var err error
		if c.unsub {
			err = c.ps.SUnsubscribe(ctx, ch)
		} else {
			err = c.ps.SSubscribe(ctx, ch)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// numsub stores the number of connections subscribed to channel in its
// entry. On failure the entry keeps what it had.
func (s *shard) numsub(ctx context.Context, channel string) {
	n, err := s.countSubscribers(ctx, channel)
	if err != nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if e := s.entries[channel]; e != nil {
		e.peers = n
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

// readLoop receives messages and confirmations for the shard's connection,
// pings it when silent and replaces it when it fails.
func (s *shard) readLoop() {
	ctx := s.hub.ctx
	pinged := false
	failures := 0
	for {
		s.mu.Lock()
		ps, gen, live := s.ps, s.gen, s.live
		s.mu.Unlock()
		// Reading would connect an idle connection, and in sharded mode
		// to any node: wait for a first command to pick its server.
		select {
		case <-live:
		case <-ctx.Done():
			return
		}

		msg, err := ps.ReceiveTimeout(ctx, s.healthCheck)
		if ctx.Err() != nil {
			return
		}
		var ne net.Error
		switch {
		case err == nil:
			pinged, failures = false, 0
			s.dispatch(gen, msg)
			if !s.lagging() && s.probed(ctx) {
				continue
			}
		case errors.As(err, &ne) && ne.Timeout() && !pinged && !s.lagging() && s.probed(ctx):
			if pinged = ps.Ping(ctx) == nil; pinged {
				continue
			}
		}
		// Broken, silent after a ping, or its confirmations lost: start a
		// new generation, after a backoff when failures repeat.
		pinged = false
		s.replace(gen)
		if failures > 0 {
			select {
			case <-time.After(backoff.Exponential(10*time.Millisecond, time.Second, failures-1)):
			case <-ctx.Done():
				return
			}
		}
		failures++
	}
}

// probed sends a probe when one is due and reports false when the last one
// did not come back within the health-check interval. Reader only.
func (s *shard) probed(ctx context.Context) bool {
	if s.probe == "" {
		return true
	}
	s.mu.Lock()
	p := s.entries[s.probe]
	ready := p != nil && p.state == subscribed
	s.mu.Unlock()
	if !ready || time.Since(s.probeSent) < s.healthCheck {
		return true
	}
	if s.probing {
		return false
	}
	s.probing, s.probeSent = true, time.Now()
	pctx, cancel := context.WithTimeout(ctx, s.healthCheck)
	defer cancel()
	_ = s.rdb.Publish(pctx, s.probe, "probe").Err()
	return true
}

// lagging reports whether confirmations have been awaited for longer than
// the health check allows.
func (s *shard) lagging() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pending > 0 && time.Since(s.progress) > s.healthCheck
}

// replace retires connection generation gen: a new connection subscribes,
// in one command, every channel that still has waiters.
func (s *shard) replace(gen uint64) {
	s.mu.Lock()
	if gen != s.gen || s.closed {
		s.mu.Unlock()
		return
	}
	old := s.ps
	s.gen++
	s.ps, s.live = s.newPubSub(), make(chan struct{})
	s.pending = 0
	s.probing, s.probeSent = false, time.Now()
	var wanted []string
	for ch, e := range s.entries {
		if e.refs == 0 {
			delete(s.entries, ch)
			continue
		}
		if e.state == subscribed {
			e.ready = make(chan struct{})
		}
		e.state = subscribing
		wanted = append(wanted, ch)
	}
	if len(wanted) > 0 {
		s.send(false, wanted...)
	}
	s.mu.Unlock()
	_ = old.Close()
}

// dispatch applies one message of connection generation gen.
func (s *shard) dispatch(gen uint64, msg any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if gen != s.gen {
		return
	}
	switch m := msg.(type) {
	case *redis.Subscription:
		e := s.entries[m.Channel]
		if m.Kind != "sunsubscribe" || e == nil || e.state != subscribed {
			// The answer to one of our commands (an unasked SUNSUBSCRIBE
			// is the server's: a slot moved).
			s.pending = max(s.pending-1, 0)
			s.progress = time.Now()
		}
		if e == nil {
			return
		}
		switch m.Kind {
		case "subscribe", "ssubscribe":
			s.subscribed(e)
		case "unsubscribe":
			s.unsubscribed(e)
		case "sunsubscribe":
			if e.state == subscribed {
				// Unasked: the slot moved to another master. This entry
				// hears nothing more; its waiters retry now and then by
				// their timers, and new waiters subscribe afresh.
				s.orphan(e)
				return
			}
			s.unsubscribed(e)
		}
	case *redis.Message:
		if m.Channel == s.probe {
			s.probing = false
			return
		}
		e := s.entries[m.Channel]
		if e == nil || e.state != subscribed {
			return
		}
		if m.Payload == keys.ReadUnlockMessage {
			e.releaseAll()
		} else {
			e.released()
		}
	}
}

// subscribed handles the server's confirmation of a SUBSCRIBE.
func (s *shard) subscribed(e *entry) {
	if e.state != subscribing {
		return
	}
	if e.refs == 0 {
		s.unsubscribe(e)
		return
	}
	e.state = subscribed
	close(e.ready)
	if e.confirmed {
		// A new connection: releases published meanwhile are lost.
		e.releaseAll()
	}
	e.confirmed = true
}

// orphan detaches e from the shard: its waiters are woken to retry, then
// sleep by their timers only; the channel is no longer subscribed here.
// Called with mu held.
func (s *shard) orphan(e *entry) {
	s.hub.moved.Store(true)
	s.hub.mu.Lock()
	s.hub.left[e.channel] = s.node
	s.hub.mu.Unlock()
	delete(s.entries, e.channel)
	e.state = orphaned
	e.releaseAll()
}

// unsubscribed handles the server's confirmation of an UNSUBSCRIBE.
func (s *shard) unsubscribed(e *entry) {
	if e.state != unsubscribing {
		return
	}
	if e.refs > 0 {
		e.state = subscribing
		s.send(false, e.channel)
		return
	}
	delete(s.entries, e.channel)
}
