package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/internal/keys"
)

// listener hears what a lock's releases and grants announce on the lock's
// own channels (keys.Channel, and keys.RWChannel for a read-write lock):
// an unlock message; what a semaphore's releases and a latch's count
// announce on theirs (keys.SemaphoreChannel, keys.LatchChannel); and on
// relock's turn channel (keys.TurnChannel) a
// fair lock's notice that a waiter's turn came
// ('turn:<entry>'). It never listens on a fair waiter's own channel: the
// fair scripts take a waiter nobody listens to for dead, and an onlooker
// there would keep a dead waiter alive.
type listener struct {
	ps    *redis.PubSub
	msgs  <-chan any // *redis.Message and *redis.Subscription
	bases []string   // the lock's channels
	// pending counts the subscriptions asked for and not yet confirmed:
	// another confirmation is go-redis resubscribing after a reconnect.
	pending map[string]int
}

// listen subscribes to the channels of the lock name (SSUBSCRIBE with
// sharded pub/sub) and returns once the server has confirmed it, so that
// no release after that goes unheard.
func (s *session) listen(ctx context.Context, name string, sharded bool) (*listener, error) {
	l := &listener{bases: []string{keys.Channel(name), keys.RWChannel(name), keys.TurnChannel(name), keys.SemaphoreChannel(name)}, pending: make(map[string]int)}
	if latch := keys.LatchChannel(name); !sharded || keys.Slot(latch) == keys.Slot(l.bases[0]) {
		l.bases = append(l.bases, latch) // (SSUBSCRIBE takes the channels of one slot)
	}
	rctx, cancel := s.request(ctx)
	defer cancel()
	for _, ch := range l.bases {
		l.pending[ch]++
	}
	var err error
	if sharded {
		l.ps = s.rdb.SSubscribe(rctx, l.bases...)
	} else {
		l.ps = s.rdb.Subscribe(rctx, l.bases...)
	}
	l.msgs = l.ps.ChannelWithSubscriptions()
	if err == nil {
		err = l.settle(rctx)
	}
	if err != nil {
		_ = l.ps.Close()
		return nil, fmt.Errorf("subscribing to %s: %w", l.bases[0], err)
	}
	return l, nil
}

// settle waits until the server has confirmed every subscription asked
// for. It drops the messages that come meanwhile: the caller reads the
// lock afterwards.
func (l *listener) settle(ctx context.Context) error {
	for len(l.pending) > 0 {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case m, ok := <-l.msgs:
			if !ok {
				return errors.New("subscription closed")
			}
			if sub, ok := m.(*redis.Subscription); ok {
				l.confirmed(sub)
			}
		}
	}
	return nil
}

// close ends the subscription.
func (l *listener) close() { _ = l.ps.Close() }

// confirmed notes the server's confirmation sub, and reports whether it
// was awaited; an unsubscription counts as awaited.
func (l *listener) confirmed(sub *redis.Subscription) bool {
	if strings.HasSuffix(sub.Kind, "unsubscribe") {
		return true
	}
	if l.pending[sub.Channel] == 0 {
		return false
	}
	if l.pending[sub.Channel]--; l.pending[sub.Channel] == 0 {
		delete(l.pending, sub.Channel)
	}
	return true
}

// next waits for the next message on the lock's channels, a resubscription
// after a reconnect, or expiry.
func (l *listener) next(ctx context.Context, expiry <-chan time.Time) (trigger, error) {
	for {
		select {
		case <-ctx.Done():
			return trigger{}, ctx.Err()
		case <-expiry:
			return trigger{reason: "ttl"}, nil
		case m, ok := <-l.msgs:
			if !ok {
				return trigger{}, errors.New("subscription closed")
			}
			switch m := m.(type) {
			case *redis.Message:
				if l.ours(m.Channel) {
					return trigger{reason: "message", channel: m.Channel, message: m.Payload}, nil
				}
			case *redis.Subscription:
				if !l.confirmed(m) {
					return trigger{reason: "resubscribed"}, nil
				}
			}
		}
	}
}

// ours reports whether channel is one of the lock's.
func (l *listener) ours(channel string) bool { return slices.Contains(l.bases, channel) }
