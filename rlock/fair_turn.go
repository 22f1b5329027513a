package rlock

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/queue"
)

// fairTurns is the turn-taking of a FairMutex: its owner waits in the
// lock's queue in Redis, listening on its own channel, one goroutine of
// the owner at a time.
type fairTurns struct{ f *FairMutex }

func (p fairTurns) start(o *owner, deadline time.Time) turn {
	return &fairTurn{listening: listening{o: o, channel: p.f.q.Channel(o.id), deadline: deadline}, f: p.f}
}

// fairTurn is one acquisition of a FairMutex. Its first attempt never
// queues; once listening, it holds the owner's waiting token and every
// attempt queues the owner or keeps its place, until it gets the lock or
// gives up, and then leaves the queue.
type fairTurn struct {
	listening
	f      *FairMutex
	qw     *queue.Waiter // nil until listening: the owner's place in line
	holder bool          // holds the owner's waiting token
}

func (t *fairTurn) attempt(ctx context.Context, rdb redis.Scripter, lease time.Duration, holds int) (outcome, error) {
	if t.qw == nil {
		return t.o.kind.attempt(ctx, rdb, lease, holds)
	}
	a, err := t.qw.Attempt(ctx, rdb, lease, holds)
	return fairOutcome(a), err
}

// enter joins the queue at once, without a first attempt, when a
// subscription of a recent wait is still kept (the joining attempt takes a
// free lock nobody waits for, as the first attempt would).
func (t *fairTurn) enter(ctx context.Context) (time.Duration, bool) {
	if !t.f.hasLinger() {
		return 0, false
	}
	_, ok, _ := t.join(ctx)
	// A failed join leaves no sleeper: the first attempt runs, and listen
	// reports why the wait ends.
	return 0, ok
}

func (t *fairTurn) listen(ctx context.Context, _ outcome) (time.Duration, bool, error) {
	return t.join(ctx)
}

// join takes the owner's waiting token and starts listening on its own
// channel (taking a kept subscription if there is one), and the attempts
// queue from then on. It returns false, with ctx.Err(), ErrClosed, or nil
// when the wait elapsed, if it cannot.
func (t *fairTurn) join(ctx context.Context) (time.Duration, bool, error) {
	if !t.holder {
		if t.holder = t.f.takeWaiting(ctx, t.deadline); !t.holder {
			if err := ctx.Err(); err != nil {
				return 0, false, err
			}
			if t.o.c.closed() {
				return 0, false, ErrClosed
			}
			return 0, false, nil
		}
	}
	if t.s = t.f.takeLinger(); t.s == nil {
		if ok, err := t.listening.listen(ctx); !ok {
			return 0, false, err
		}
	}
	t.qw = t.f.q.Waiter(t.o.id)
	return 0, true, nil
}

func (t *fairTurn) pause(out outcome) time.Duration {
	return t.qw.Pause(queue.Attempt{Position: out.pos, TTL: out.ttl})
}

// done leaves the queue unless the lock was taken (even when ctx has
// ended; when Redis cannot be reached, the place is evicted later, as a
// dead waiter's), keeps the subscription of a successful wait for a
// heartbeat, and hands the waiting token on.
func (t *fairTurn) done(ctx context.Context, ok bool) {
	if t.qw != nil && !ok {
		_, _ = persist(t.o.c, ctx, func(ctx context.Context) (struct{}, error) {
			return struct{}{}, t.qw.Leave(ctx)
		})
	}
	switch {
	case t.s == nil:
	case ok:
		t.f.keepLinger(t.s)
	default:
		t.s.close()
	}
	if t.holder {
		<-t.f.waiting
	}
}

// hasLinger reports whether a subscription of a recent wait is kept.
func (f *FairMutex) hasLinger() bool {
	f.lingerMu.Lock()
	defer f.lingerMu.Unlock()
	return f.linger != nil
}

// takeLinger hands over the kept subscription, if any, to a new wait.
func (f *FairMutex) takeLinger() sleeper {
	f.lingerMu.Lock()
	defer f.lingerMu.Unlock()
	s := f.linger
	f.linger = nil
	if f.lingerTimer != nil {
		f.lingerTimer.Stop()
	}
	return s
}

// keepLinger keeps s, the subscription of a wait that got the lock, for a
// heartbeat.
func (f *FairMutex) keepLinger(s sleeper) {
	f.lingerMu.Lock()
	defer f.lingerMu.Unlock()
	if f.linger != nil || f.c.closed() {
		s.close()
		return
	}
	f.linger = s
	if f.lingerTimer == nil {
		f.lingerTimer = time.AfterFunc(f.q.Heartbeat(), f.dropLinger)
	} else {
		f.lingerTimer.Reset(f.q.Heartbeat())
	}
}

// dropLinger closes the kept subscription, unused for a heartbeat.
func (f *FairMutex) dropLinger() {
	if s := f.takeLinger(); s != nil {
		s.close()
	}
}

// takeWaiting waits until no other goroutine of this owner is waiting in
// the queue, and reports false if ctx ends, the Client closes or the
// deadline (none when zero) passes first.
func (f *FairMutex) takeWaiting(ctx context.Context, deadline time.Time) bool {
	select {
	case f.waiting <- struct{}{}:
		return true
	default:
	}
	var expired <-chan time.Time
	if !deadline.IsZero() {
		t := time.NewTimer(time.Until(deadline))
		defer t.Stop()
		expired = t.C
	}
	select {
	case f.waiting <- struct{}{}:
		return true
	case <-ctx.Done():
	case <-f.c.ctx.Done():
	case <-expired:
	}
	return false
}
