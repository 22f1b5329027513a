package rlock

import (
	"container/list"
	"context"
	"time"

	"github.com/redis/go-redis/v9"
)

// clientTurn is the turn-taking of every lock but the fair ones: all
// waiters of a lock name in one Client share one subscription and are
// woken in arrival order; a newcomer, or an owner that just unlocked,
// queues behind those already asleep instead of racing them.
type clientTurn struct {
	lockTurn
	shared bool
	// listed is the turn's place among the Client's handoffs while it
	// listens, when its owner can be passed the lock (owner.handoff).
	listed *list.Element
	// handed: a release passed the lock to this turn. Guarded by the
	// owner's mu.
	handed bool
}

// clientTurns is the policy of clientTurn. With shared, a waiter that
// gets the lock wakes the others asleep on its channel in this Client, as
// they may hold it too (readers): a release message wakes one waiter per
// Client.
type clientTurns struct{ shared bool }

func (p clientTurns) start(o *owner, lease time.Duration) turn {
	return &clientTurn{lockTurn: lockTurn{listening: listening{c: o.c, channel: o.channel}, o: o, lease: lease}, shared: p.shared}
}

func (t *clientTurn) attempt(ctx context.Context) (outcome, error) {
	return t.o.attempt(ctx, t.lease, t)
}

func (t *clientTurn) send(ctx context.Context, rdb redis.Scripter, lease time.Duration, holds int) (outcome, error) {
	return t.o.kind.attempt(ctx, rdb, lease, holds)
}

// enter queues the acquisition behind this Client's waiters already asleep
// on the lock's channel, if any: it sleeps until they all have retried.
func (t *clientTurn) enter(ctx context.Context, deadline time.Time, single bool) (time.Duration, bool, error) {
	t.deadline = deadline
	if !t.queues(single) {
		return 0, false, nil
	}
	s, sleep := t.c.sleepers().join(t.channel)
	if s == nil {
		return t.yield(ctx)
	}
	t.s = s
	t.list()
	return sleep, true, nil
}

// yield lets the waiters woken by this Client's last release of the lock
// go first, if it was published within the step-aside (see handoffs): it
// listens and sleeps out the rest of the step-aside before the first
// attempt.
// (Spinners do not: spin mode stays what it is.)
func (t *clientTurn) yield(ctx context.Context) (time.Duration, bool, error) {
	until := t.c.handoffs.yieldUntil(t.o.name)
	if until.IsZero() || t.c.wire.Load().hub == nil {
		return 0, false, nil
	}
	if ok, _ := t.listening.listen(ctx); !ok {
		return 0, false, nil // the first attempt runs, and listen reports why
	}
	t.list()
	return max(time.Until(until), 0), true, nil
}

func (t *clientTurn) listen(ctx context.Context, out outcome) (time.Duration, bool, error) {
	ok, err := t.listening.listen(ctx)
	if !ok {
		return 0, false, err
	}
	t.list()
	return t.s.first(t.o.sleepFor(out.ttl)), true, nil
}

// list makes the turn one of the Client's handoffs, if its owner can be
// passed the lock and it listens (a spinner is never passed a lock: spin
// mode stays what it is).
func (t *clientTurn) list() {
	if t.o.handoff && t.c.wire.Load().hub != nil {
		t.c.handoffs.add(t)
	}
}

func (t *clientTurn) handedOff() bool { return t.handed }

func (t *clientTurn) pause(out outcome) time.Duration { return t.o.sleepFor(out.ttl) }

func (t *clientTurn) done(ctx context.Context, ok bool) {
	if t.s == nil {
		return
	}
	t.c.handoffs.remove(t)
	if !ok {
		t.o.mu.Lock()
		handed := t.handed
		t.o.mu.Unlock()
		if handed {
			// Passed the lock after the wait had ended (ctx, deadline,
			// Close): nobody is to hold it.
			_ = t.o.unlock(context.WithoutCancel(ctx))
		}
	}
	if ok {
		t.s.won()
		if t.shared {
			t.s.wakeOthers()
		}
	}
	t.s.close()
}
