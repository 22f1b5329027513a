package rlock

import (
	"context"
	"errors"
	"time"

	"github.com/relock-go/relock/pubsub"
)

// sleeper is how a waiter sleeps between its attempts: on the shared
// subscription of its channel (the default: a subscription, which also
// hears who won and what was granted), or by a backoff (WithSpin).
type sleeper interface {
	// sleep returns after at most d, to retry, and reports whether a
	// release woke it; or it returns ctx.Err(), ErrClosed, or errMoved
	// (listen again: the channel moved).
	sleep(ctx context.Context, d time.Duration) (bool, error)
	// close stops listening.
	close()
}

// sleepers is a Client's way of waiting.
type sleepers interface {
	// listen starts listening on channel. It returns a nil sleeper and nil
	// error when deadline (none when zero) passes first.
	listen(ctx context.Context, deadline time.Time, channel string) (sleeper, error)
	// join joins this Client's waiters already asleep on channel, if any,
	// and returns how long to sleep before a first attempt: until all of
	// them will have retried. It returns nil when nobody sleeps there.
	join(channel string) (sleeper, time.Duration)
}

// errMoved tells a wait loop that its subscription hears nothing any more
// (its hash slot moved to another master): it must listen again.
var errMoved = errors.New("subscription moved")

// hubSleepers wait on pub/sub subscriptions shared through a Hub.
type hubSleepers struct{ hub *pubsub.Hub }

func (h hubSleepers) listen(ctx context.Context, deadline time.Time, channel string) (sleeper, error) {
	sctx := ctx
	if !deadline.IsZero() {
		var cancel context.CancelFunc
		sctx, cancel = context.WithDeadline(ctx, deadline)
		defer cancel()
	}
	sub, err := h.hub.Subscribe(sctx, channel)
	switch {
	case err == nil:
		return subscription{sub}, nil
	case errors.Is(err, pubsub.ErrClosed):
		return nil, ErrClosed
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case sctx.Err() != nil:
		return nil, nil // the wait elapsed
	}
	return nil, err
}

func (h hubSleepers) join(channel string) (sleeper, time.Duration) {
	sub, due, ok := h.hub.JoinBehind(channel)
	if !ok {
		return nil, 0
	}
	return subscription{sub}, max(time.Until(due), 0) + time.Millisecond
}

// subscription waits for a release message on the lock's channel.
type subscription struct{ sub *pubsub.Subscription }

func (s subscription) sleep(ctx context.Context, d time.Duration) (bool, error) {
	woken, err := s.sub.Wait(ctx, d)
	switch {
	case errors.Is(err, pubsub.ErrClosed):
		return false, ErrClosed
	case errors.Is(err, pubsub.ErrMoved):
		return false, errMoved
	}
	return woken, err
}

func (s subscription) close() { s.sub.Close() }

// spinSleepers poll: each waiter sleeps by the backoff.
type spinSleepers struct {
	backoff Backoff
	closed  <-chan struct{} // the Client's Close
}

func (s spinSleepers) listen(context.Context, time.Time, string) (sleeper, error) {
	return &spinner{backoff: s.backoff, closed: s.closed}, nil
}

func (s spinSleepers) join(string) (sleeper, time.Duration) { return nil, 0 }

// spinner sleeps by its backoff, never longer than asked.
type spinner struct {
	backoff Backoff
	attempt int
	closed  <-chan struct{}
}

func (s *spinner) sleep(ctx context.Context, d time.Duration) (bool, error) {
	d = min(d, s.backoff(s.attempt))
	s.attempt++
	return false, sleepOnTimer(ctx, d, s.closed)
}

func (s *spinner) close() {}

// sleepOnTimer sleeps d, unless ctx ends (ctx.Err()) or closed is closed first
// (ErrClosed).
func sleepOnTimer(ctx context.Context, d time.Duration, closed <-chan struct{}) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-closed:
		return ErrClosed
	}
}
