package rlock

import (
	"container/list"
	"context"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/scripts"
)

// clientTurn is the turn-taking of every lock but the fair ones: all
// waiters of a lock name in one Client share one subscription and are
// woken in arrival order; a newcomer, or an owner that just unlocked,
// queues behind those already asleep instead of racing them.
type clientTurn struct {
	lockTurn
	shared bool
	// listed is the turn's place among the Client's handoffs while it
	// listens, when its owner can be passed the lock (clientTurns.handoff).
	listed *list.Element
	// handed: a release passed the lock to this turn. Guarded by the
	// owner's mu.
	handed bool
}

// clientTurns is the policy of clientTurn. With shared, a waiter that
// gets the lock wakes the others asleep on its channel in this Client, as
// they may hold it too (readers): a release message wakes one waiter per
// Client. With handoff (a Mutex's owners), the releases of an owner's last
// hold may pass the lock to a waiter of the same Client, and its waits may
// be passed the lock (see handoffs).
type clientTurns struct{ shared, handoff bool }

func (p clientTurns) start(o *owner, lease time.Duration) turn {
	t := &clientTurn{lockTurn: lockTurn{listening: listening{c: o.c, channel: o.channel}, o: o, lease: lease}, shared: p.shared}
	if p.handoff {
		t.listener = t
	}
	return t
}

// passOn reserves the oldest waiter of this Client that o's release may
// pass the lock to (handoffs.reserve), if o's turns hand off.
func (p clientTurns) passOn(o *owner) recipient {
	if !p.handoff {
		return nil
	}
	if t := handoffsOf.in(o.c).reserve(o); t != nil {
		return t
	}
	return nil
}

// released: nothing is told of a release but its step-aside.
func (clientTurns) released(*owner, scripts.Reply) {}

func (t *clientTurn) attempt(ctx context.Context) (outcome, error) {
	return t.o.attempt(ctx, t.lease, t)
}

func (t *clientTurn) send(ctx context.Context, rdb redis.Scripter, lease time.Duration, count int) (outcome, error) {
	return t.o.kind.attempt(ctx, rdb, lease, count)
}

// enter queues the acquisition behind this Client's waiters already asleep
// on the lock's channel, if any: it sleeps until they all have retried.
// Else, if this Client's last release of the lock was published within
// the step-aside (see stepAsides), it lets the waiters that release woke go
// first: it listens and sleeps out the rest of the step-aside before its
// first attempt. (Spinners do neither: spin mode stays what it is.)
func (t *clientTurn) enter(single bool) wait {
	if !t.queues(single) {
		return wait{}
	}
	if s, sleep := t.c.sleepers().join(t.channel); s != nil {
		t.s = s
		t.listened()
		return wait{listen: &t.listening, sleep: sleep}
	}
	until := t.c.asides.until(t.o.name)
	if until.IsZero() || !t.c.hears() {
		return wait{}
	}
	return wait{listen: &t.listening, until: until, optional: true}
}

func (t *clientTurn) next(out outcome) wait { return t.after(t.o.sleepFor(out.ttl)) }

// listened makes the turn, which listens now, one of the Client's
// handoffs, if its owner can be passed the lock and it hears releases (a
// spinner is never passed a lock: spin mode stays what it is).
func (t *clientTurn) listened() {
	if t.listener != nil && t.c.hears() {
		handoffsOf.in(t.c).add(t)
	}
}

func (t *clientTurn) handedOff() bool { return t.handed }

func (t *clientTurn) done(ctx context.Context, ok bool) {
	if t.s == nil {
		return
	}
	handoffsOf.in(t.c).remove(t)
	if !ok {
		t.o.mu.Lock()
		handed := t.handed
		t.o.mu.Unlock()
		if handed {
			// Passed the lock after the wait had ended (ctx, deadline,
			// Close): nobody is to hold it.
			_ = t.o.unlock(context.WithoutCancel(ctx))
		}
	} else {
		t.won(t.shared)
	}
	t.s.close()
}
