package pubsub

import (
	"context"
	"errors"
	"maps"
	"net"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/relock-go/relock/internal/backoff"
	"github.com/relock-go/relock/internal/keys"
)

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
		timeout := errors.As(err, &ne) && ne.Timeout()
		late := false
		switch {
		case isRefusal(err) && s.refused(gen, err):
			// An ACL refused a subscription: the connection is sound.
			continue
		case err == nil:
			pinged, failures = false, 0
			s.dispatch(gen, msg)
			if late = s.overdue(false); !late {
				s.probe(gen)
				continue
			}
		case timeout && !pinged:
			if late = s.overdue(true); late {
				break
			}
			s.probe(gen)
			if pinged = ps.Ping(ctx) == nil; pinged {
				continue
			}
		}
		// Broken, silent after a ping, or its confirmations lost: start a
		// new generation, after a backoff when failures repeat.
		why := err
		switch {
		case late:
			why = errLagging
		case timeout && pinged:
			why = errSilent
		}
		pinged = false
		s.replace(gen, why)
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

// probe publishes a probe, in the background, when one is due for
// connection generation gen: one publish per health-check interval,
// however many channels the connection carries. Probes are numbered, so
// that one heard before its publish returned counts. Reader only.
func (s *shard) probe(gen uint64) {
	if s.probeCh == "" {
		return
	}
	s.mu.Lock()
	p := s.entries[s.probeCh]
	due := p != nil && p.state == subscribed && !s.publishing && s.heard >= s.sent && time.Since(s.probeAt) >= s.healthCheck
	n := s.sent + 1
	if due {
		s.publishing = true
	}
	s.mu.Unlock()
	if !due {
		return
	}
	// The publish goes through the command pool, which may be busy: the
	// reader goes on reading meanwhile.
	s.hub.wg.Add(1)
	go func() {
		defer s.hub.wg.Done()
		ctx, cancel := context.WithTimeout(s.hub.ctx, s.healthCheck)
		defer cancel()
		// A number, as every payload on a channel of Redisson's layout.
		err := s.rdb.Publish(ctx, s.probeCh, strconv.FormatUint(n, 10)).Err()
		s.mu.Lock()
		defer s.mu.Unlock()
		s.publishing = false
		if gen != s.gen {
			return
		}
		// A probe that could not be published says nothing of the
		// connection: the next is due an interval later.
		s.probeAt = time.Now()
		if err == nil {
			s.sent = n
		}
	}()
}

// heardProbe records probe message payload, its number. Called with mu
// held.
func (s *shard) heardProbe(payload string) {
	if n, err := strconv.ParseUint(payload, 10, 64); err == nil {
		s.heard = max(s.heard, n)
	}
}

// overdue reports whether the connection has failed to confirm a
// subscription, or to hear its probe back, in time. The time allowed
// adapts to the load: when idle (the reader waited a health-check interval
// and nothing came), one interval since the probe was published or the
// last confirmation came; while messages keep coming, so that the reader
// may be working through a backlog (a burst of subscriptions or releases
// on a busy machine) with the awaited answer queued behind it, ten.
func (s *shard) overdue(idle bool) bool {
	limit := s.healthCheck
	if !idle {
		limit *= 10
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return (s.pending > 0 && time.Since(s.progress) > limit) || (s.sent > s.heard && time.Since(s.probeAt) > limit)
}

// Why a connection is replaced, besides its own error.
var (
	errSilent  = errors.New("pubsub: connection silent after a ping")
	errLagging = errors.New("pubsub: subscriptions or probes not confirmed in time")
)

// How a new connection resubscribes: in commands of resubscribeBatch
// channels (a writer's command queue stays short, and confirmations come
// back as each batch is done), the waiters of its channels retrying spread
// over retrySpreadPerChannel per channel, at most a health-check interval
// (20 ms for a thousand channels, 2 s for a hundred thousand).
const (
	resubscribeBatch      = 1000
	retrySpreadPerChannel = 20 * time.Microsecond
)

// replace retires connection generation gen, which failed with why: a new
// connection subscribes, in batches, every channel that still has waiters,
// and the Hub's OnReplace is told.
func (s *shard) replace(gen uint64, why error) {
	s.mu.Lock()
	if gen != s.gen || s.closed {
		s.mu.Unlock()
		return
	}
	old := s.ps
	s.gen++
	s.ps, s.live = s.newPubSub(), make(chan struct{})
	s.pending, s.flights = 0, nil
	s.heard, s.probeAt = s.sent, time.Now()
	var wanted []string
	for ch, e := range s.entries {
		if e.q.subs == 0 {
			delete(s.entries, ch)
			continue
		}
		if e.state == subscribed {
			e.ready = make(chan struct{})
		}
		e.state = subscribing
		wanted = append(wanted, ch)
	}
	// The waiters retry once their channel is confirmed again, spread
	// over a time that grows with their number, so that many channels do
	// not send all their retries at once.
	s.spread = min(time.Duration(len(wanted))*retrySpreadPerChannel, s.healthCheck)
	s.resubscribe(wanted)
	s.mu.Unlock()
	_ = old.Close()
	if f := s.hub.opt.OnReplace; f != nil {
		n := len(wanted)
		if slices.Contains(wanted, s.probeCh) {
			n-- // the Hub's own
		}
		f(n, why)
	}
}

// resubscribe queues the subscription of channels on a new connection,
// in commands of at most resubscribeBatch channels; in sharded mode each
// command is of one slot, as SSUBSCRIBE requires (a command of several
// fails whole, with CROSSSLOT). Called with mu held.
func (s *shard) resubscribe(channels []string) {
	if !s.sharded() {
		for b := range slices.Chunk(channels, resubscribeBatch) {
			s.send(false, b...)
		}
		return
	}
	bySlot := make(map[int][]string)
	for _, ch := range channels {
		slot := keys.Slot(ch)
		bySlot[slot] = append(bySlot[slot], ch)
	}
	for _, slot := range slices.Sorted(maps.Keys(bySlot)) {
		for b := range slices.Chunk(bySlot[slot], resubscribeBatch) {
			s.send(false, b...)
		}
	}
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
			s.confirmed(m.Channel)
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
		if m.Channel == s.probeCh {
			s.heardProbe(m.Payload)
			return
		}
		e := s.entries[m.Channel]
		if e == nil || e.state != subscribed {
			return
		}
		switch {
		case e.semaphoreShared():
			// A count of permits: a release, taken in turn.
			e.released()
		case m.Payload == keys.ReadUnlockMessage:
			e.q.releaseAll()
		case strings.HasPrefix(m.Payload, keys.GrantPrefix):
			// A fair waiter's own channel: it holds the lock now, unless
			// its process told it first (Subscription.Grant).
			if m.Payload != e.lastGrant {
				e.grant, e.lastGrant = m.Payload, m.Payload
				e.q.release(1)
			}
		default:
			e.released()
		}
	}
}

// subscribed handles the server's confirmation of a SUBSCRIBE.
func (s *shard) subscribed(e *entry) {
	if e.state != subscribing {
		return
	}
	if e.q.subs == 0 {
		s.unsubscribe(e)
		return
	}
	e.state = subscribed
	close(e.ready)
	if e.confirmed {
		// A new connection: releases published meanwhile are lost.
		e.q.releaseSpread(s.spread)
	}
	e.confirmed = true
}

// orphan detaches e from the shard: its waiters are woken to retry, then
// sleep by their timers only; the channel is no longer subscribed here.
// Called with mu held.
func (s *shard) orphan(e *entry) {
	s.hub.router.left(e.channel, s.node)
	delete(s.entries, e.channel)
	e.state = orphaned
	e.q.releaseAll()
}

// unsubscribed handles the server's confirmation of an UNSUBSCRIBE.
func (s *shard) unsubscribed(e *entry) {
	if e.state != unsubscribing {
		return
	}
	if e.q.subs > 0 {
		e.state = subscribing
		s.send(false, e.channel)
		return
	}
	s.keep(e)
	delete(s.entries, e.channel)
}
