package rlock

import (
	"context"
	"errors"
	"time"

	"github.com/relock-go/relock/pubsub"
)

// waiter sleeps between a lock waiter's attempts.
type waiter interface {
	// wait returns after at most d to retry, or ctx.Err() / ErrClosed.
	wait(ctx context.Context, d time.Duration) error
	// won is told that the attempt after the last wait took the lock.
	won()
	close()
}

// newWaiter returns the Client's waiting strategy for channel: a shared
// subscription, or a spinner with WithSpin. It returns a nil waiter and nil
// error when deadline passes while subscribing.
func (c *Client) newWaiter(ctx context.Context, deadline time.Time, channel string) (waiter, error) {
	if c.opts.spin != nil {
		return &spinner{backoff: c.opts.spin, closed: c.ctx.Done()}, nil
	}
	ps, err := c.pubsub(ctx)
	if err != nil {
		return nil, err
	}
	sctx := ctx
	if !deadline.IsZero() {
		var cancel context.CancelFunc
		sctx, cancel = context.WithDeadline(ctx, deadline)
		defer cancel()
	}
	sub, err := ps.hub.Subscribe(sctx, channel)
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

// waitBehind joins the waiters of this Client that already sleep on
// channel, if any, and returns how long to sleep before a first attempt:
// until all of them will have retried. It returns a nil waiter when there
// is nobody to wait behind (or in spin mode).
func (c *Client) waitBehind(channel string) (waiter, time.Duration) {
	w := c.wire.Load()
	if w == nil || w.hub == nil {
		return nil, 0
	}
	sub, due, ok := w.hub.JoinBehind(channel)
	if !ok {
		return nil, 0
	}
	return subscription{sub}, max(time.Until(due), 0) + time.Millisecond
}

// subscription waits for an unlock message on the lock's channel.
type subscription struct{ sub *pubsub.Subscription }

func (s subscription) wait(ctx context.Context, d time.Duration) error {
	err := s.sub.Wait(ctx, d)
	switch {
	case errors.Is(err, pubsub.ErrClosed):
		return ErrClosed
	case errors.Is(err, pubsub.ErrMoved):
		return errMoved
	}
	return err
}

// errMoved tells a wait loop that its subscription hears nothing any more
// (its slot moved to another master): it must subscribe again.
var errMoved = errors.New("rlock: subscription moved")

// rewait replaces w after errMoved with a new subscription to channel and
// returns it, or nil and the error (nil when the deadline passed) that ends
// the wait.
func (c *Client) rewait(ctx context.Context, w waiter, deadline time.Time, channel string) (waiter, error) {
	w.close()
	return c.newWaiter(ctx, deadline, channel)
}

func (s subscription) won() { s.sub.Won() }

func (s subscription) close() { s.sub.Close() }

// spinner polls: it sleeps by its backoff, never longer than asked.
type spinner struct {
	backoff Backoff
	attempt int
	closed  <-chan struct{}
}

func (s *spinner) wait(ctx context.Context, d time.Duration) error {
	d = min(d, s.backoff(s.attempt))
	s.attempt++
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-s.closed:
		return ErrClosed
	}
}

func (s *spinner) won() {}

func (s *spinner) close() {}
