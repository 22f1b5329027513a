package rlock

import (
	"context"
	"errors"
	"time"
)

// waitLoop is the one wait loop of every acquisition: of a lock (owner.enter,
// owner.reenter), of a semaphore's permits, of a latch's zero
// (countHandle.acquire). It attempts, and while the attempts fail sleeps
// until woken or the pause after the last attempt (capped by the remaining
// wait) passes, then attempts again, until one succeeds, the wait (forever
// when negative; 0: a single attempt) elapses, or ctx ends. The turn t
// decides whom the acquisition waits behind in this process, what each
// attempt is and where it listens; a waiter listens before it retries, so
// a release between an attempt and the subscription is never missed. The
// acquisition's events and its place among the Client's waiters
// (Activity) come from here, for every kind.
func (c *Client) waitLoop(ctx context.Context, t turn, wait time.Duration) (out outcome, err error) {
	p := progress{c: c, t: t, ctx: ctx, start: time.Now()}
	defer func() { p.finish(out, err) }()
	if err := c.begin(ctx); err != nil {
		return outcome{}, err
	}
	var deadline time.Time
	if wait > 0 {
		deadline = p.start.Add(wait)
	}
	sleep, queued, err := t.enter(ctx, deadline, wait == 0)
	defer func() { t.done(ctx, out.ok) }()
	if err != nil {
		return outcome{}, elapsed(err)
	}
	if queued {
		p.waiting()
	}
	// retry: the attempt ahead follows a sleep (the first one too, for an
	// acquisition queued behind others).
	for retry := queued; ; retry = true {
		if retry {
			if err := p.sleep(ctx, deadline, sleep); err != nil {
				return outcome{}, elapsed(err)
			}
		}
		if out, err = p.attempt(ctx); out.ok || err != nil || wait == 0 {
			return out, err
		}
		if t.listened() {
			sleep = t.pause(out)
			continue
		}
		var listening bool
		if sleep, listening, err = t.listen(ctx, out); !listening {
			return outcome{}, err
		}
		p.waiting()
	}
}

// begin checks that an acquisition may start: the Client is open, ctx has
// not ended, and the Client's pub/sub is decided.
func (c *Client) begin(ctx context.Context) error {
	if c.closed() {
		return ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	_, err := c.pubsub(ctx)
	return err
}

// elapsed is nil for errWaitElapsed (the wait ended, which is no error),
// else err.
func elapsed(err error) error {
	if errors.Is(err, errWaitElapsed) {
		return nil
	}
	return err
}
