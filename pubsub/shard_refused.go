package pubsub

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/relock-go/relock/internal/keys"
)

// ErrRefused is wrapped, with the server's own error, by the errors of
// Subscribe and Wait when the server refused to subscribe the channel (a
// Redis ACL without it, NOPERM). The connection's other channels are not
// affected, and a later Subscribe asks the server again.
var ErrRefused = errors.New("pubsub: subscription refused")

// flight is a SUBSCRIBE or UNSUBSCRIBE written on the shard's connection
// whose confirmations are still to come: the server confirms its channels
// one by one in order, or refuses the command whole with one error.
type flight struct {
	unsub    bool
	channels []string
	next     int // channels[next] is the next confirmation due
}

// wrote records command c, of the current connection, as written: its
// confirmations are to come, and are awaited from now, not from when it
// queued, so that a writer the machine was too busy to schedule does not
// make the connection look lost. Called with mu held, before the command
// goes out, so that no confirmation comes before its record.
func (s *shard) wrote(c command) {
	if s.pending == 0 {
		s.progress = time.Now()
	}
	s.pending += len(c.channels)
	s.flights = append(s.flights, flight{unsub: c.unsub, channels: c.channels})
}

// confirmed records the server's confirmation of channel, when it is the
// one the oldest command in flight awaits (the server confirms channels in
// the order asked; an unasked SUNSUBSCRIBE, a moved slot's, awaits
// nothing). Called with mu held.
func (s *shard) confirmed(channel string) {
	if len(s.flights) == 0 {
		return
	}
	f := &s.flights[0]
	if f.channels[f.next] != channel {
		return
	}
	if f.next++; f.next == len(f.channels) {
		s.flights = s.flights[1:]
	}
}

// isRefusal reports whether err, read on a subscription connection, is
// the server refusing a SUBSCRIBE for want of permission: NOPERM, for a
// channel or the command itself ("... the 'subscribe' command"; Redis and
// Valkey word it differently from version to version, but every wording
// names the channel or the command). The connection itself is sound. A
// refused PING is not one: it names neither.
func isRefusal(err error) bool {
	if err == nil || !strings.HasPrefix(err.Error(), "NOPERM") {
		return false
	}
	msg := strings.ToLower(err.Error())
	return strings.Contains(msg, "channel") || strings.Contains(msg, "subscribe'")
}

// refused handles the server's refusal (err) of the oldest command in
// flight on connection generation gen. A command of several channels is
// asked again a channel at a time, so that a refusal names its channel;
// a refused channel's entry ends, its waiters told err (see refuse); a
// refused probe channel leaves the connection without probes (pings
// remain). It reports false when the refusal belongs to no subscription:
// the connection is then replaced, as after any other error.
func (s *shard) refused(gen uint64, err error) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if gen != s.gen {
		return true
	}
	if len(s.flights) == 0 || s.flights[0].unsub {
		return false
	}
	f := s.flights[0]
	s.flights = s.flights[1:]
	s.pending = max(s.pending-(len(f.channels)-f.next), 0)
	s.progress = time.Now()
	var asked []string
	for _, ch := range f.channels[f.next:] {
		if !strings.HasSuffix(ch, keys.PresenceSuffix) {
			asked = append(asked, ch)
		}
	}
	for _, ch := range asked {
		e := s.entries[ch]
		switch {
		case e == nil || e.state != subscribing:
		case len(asked) > 1:
			s.send(false, ch)
			s.queue[len(s.queue)-1].alone = true
		case ch == s.probeCh:
			delete(s.entries, ch)
			s.probeCh = ""
			s.sent = s.heard
		default:
			s.refuse(e, fmt.Errorf("%w: %s: %w", ErrRefused, ch, err))
		}
	}
	return true
}

// refuse ends e, whose subscription the server refused with err: its
// waiters' Subscribe and Wait return err, and a later Subscribe of the
// channel starts a new entry. Called with mu held.
func (s *shard) refuse(e *entry, err error) {
	delete(s.entries, e.channel)
	e.state = refused
	e.err = err
	close(e.ready)
	e.q.releaseAll()
}
