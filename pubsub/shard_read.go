package pubsub

import (
	"context"
	"errors"
	"net"
	"slices"
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
		switch {
		case err == nil:
			pinged, failures = false, 0
			s.dispatch(gen, msg)
			if !s.lagging() && s.probed(ctx) {
				continue
			}
		case timeout && !pinged && !s.lagging() && s.probed(ctx):
			if pinged = ps.Ping(ctx) == nil; pinged {
				continue
			}
		}
		// Broken, silent after a ping, or its confirmations lost: start a
		// new generation, after a backoff when failures repeat.
		why := err
		switch {
		case err == nil || (timeout && s.lagging()):
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
	// A number, as every payload on a channel of Redisson's layout.
	_ = s.rdb.Publish(pctx, s.probe, keys.UnlockMessage).Err()
	return true
}

// lagging reports whether confirmations have been awaited for longer than
// the health check allows.
func (s *shard) lagging() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pending > 0 && time.Since(s.progress) > s.healthCheck
}

// Why a connection is replaced, besides its own error.
var (
	errSilent  = errors.New("pubsub: connection silent after a ping")
	errLagging = errors.New("pubsub: subscriptions or probes not confirmed in time")
)

// replace retires connection generation gen, which failed with why: a new
// connection subscribes, in one command, every channel that still has
// waiters, and the Hub's OnReplace is told.
func (s *shard) replace(gen uint64, why error) {
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
		if e.q.waiters == 0 {
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
	if f := s.hub.opt.OnReplace; f != nil {
		n := len(wanted)
		if slices.Contains(wanted, s.probe) {
			n-- // the Hub's own
		}
		f(n, why)
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
		switch {
		case m.Payload == keys.ReadUnlockMessage:
			e.q.releaseAll()
		case strings.HasPrefix(m.Payload, keys.GrantPrefix):
			// A fair waiter's own channel: it holds the lock now.
			e.grant = m.Payload
			e.q.release(1)
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
	if e.q.waiters == 0 {
		s.unsubscribe(e)
		return
	}
	e.state = subscribed
	close(e.ready)
	if e.confirmed {
		// A new connection: releases published meanwhile are lost.
		e.q.releaseAll()
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
	if e.q.waiters > 0 {
		e.state = subscribing
		s.send(false, e.channel)
		return
	}
	delete(s.entries, e.channel)
}
