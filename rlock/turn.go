package rlock

import (
	"container/list"
	"context"
	"errors"
	"time"

	"github.com/redis/go-redis/v9"
)

// turns is a turn-taking policy: how the acquisitions of an owner take
// their turn among the lock's waiters.
type turns interface {
	// start begins the turn-taking of one acquisition by o, asked with
	// lease (0: the watchdog's).
	start(o *owner, deadline time.Time, lease time.Duration) turn
}

// turn is the turn-taking of one acquisition, used by one goroutine: the
// attempts to make, where to listen for wake-ups, how long to sleep. The
// wait loop (owner.take) calls enter, or a first attempt and listen;
// then sleep and attempt until held or given up; then done, always.
type turn interface {
	// attempt makes the attempt due now.
	attempt(ctx context.Context, rdb redis.Scripter, lease time.Duration, holds int) (outcome, error)
	// enter is called before the first attempt of an owner that does not
	// hold the lock: if it must wait behind others first, it starts
	// listening and returns how long to sleep, and true.
	enter(ctx context.Context) (time.Duration, bool)
	// listen starts listening for wake-ups after a failed first attempt
	// that found out; it returns how long to sleep before the next attempt,
	// and false (with the error, nil when the wait elapsed) to give up.
	listen(ctx context.Context, out outcome) (time.Duration, bool, error)
	// sleep sleeps at most d, or until woken (then it reports true); it
	// listens again by itself when the channel moved.
	sleep(ctx context.Context, d time.Duration) (bool, error)
	// pause is how long to sleep, unless woken, after the failed attempt
	// out.
	pause(out outcome) time.Duration
	// listened reports whether the acquisition has listened for releases:
	// it waited.
	listened() bool
	// handedOff reports that a release in this Client passed the lock to
	// this acquisition and set up its hold (see handoffs): no attempt is
	// due. Called with the owner's mu held.
	handedOff() bool
	// done ends the turn-taking; ok reports that the lock was taken.
	done(ctx context.Context, ok bool)
}

// listening is the part of a turn that sleeps on a channel: its sleeper,
// replaced when the channel moves.
type listening struct {
	o        *owner
	channel  string
	deadline time.Time
	s        sleeper // nil until listening
}

// listen starts listening; false when the deadline passed first.
func (l *listening) listen(ctx context.Context) (bool, error) {
	s, err := l.o.c.sleepers().listen(ctx, l.deadline, l.channel)
	l.s = s
	return s != nil, err
}

func (l *listening) sleep(ctx context.Context, d time.Duration) (bool, error) {
	woken, err := l.s.wait(ctx, d)
	if errors.Is(err, errMoved) {
		// Listen on the channel's new master; the retry that follows
		// catches a wake-up missed meanwhile.
		l.s.close()
		var ok bool
		if ok, err = l.listen(ctx); !ok && err == nil {
			return false, errWaitElapsed
		}
	}
	return woken, err
}

// listened reports whether the turn has listened for releases: the
// acquisition waited.
func (l *listening) listened() bool { return l.s != nil }

// errWaitElapsed ends a wait loop whose deadline passed while it listened
// again.
var errWaitElapsed = errors.New("wait elapsed")

// clientTurn is the turn-taking of every lock but the fair one: all
// waiters of a lock name in one Client share one subscription and are
// woken in arrival order; a newcomer, or an owner that just unlocked,
// queues behind those already asleep instead of racing them.
type clientTurn struct {
	listening
	k      kind
	shared bool
	lease  time.Duration // the acquisition's (0: the watchdog's)
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

func (p clientTurns) start(o *owner, deadline time.Time, lease time.Duration) turn {
	return &clientTurn{listening: listening{o: o, channel: o.channel, deadline: deadline}, k: o.kind, shared: p.shared, lease: lease}
}

func (t *clientTurn) attempt(ctx context.Context, rdb redis.Scripter, lease time.Duration, holds int) (outcome, error) {
	return t.k.attempt(ctx, rdb, lease, holds)
}

func (t *clientTurn) enter(ctx context.Context) (time.Duration, bool) {
	s, sleep := t.o.c.sleepers().join(t.channel)
	if s == nil {
		return t.yield(ctx)
	}
	t.s = s
	t.list()
	return sleep, true
}

// yield lets the waiters woken by this Client's last release of the lock
// go first, if it was published within the step-aside (see handoffs): it
// listens and sleeps out the rest of the step-aside before the first
// attempt.
// (Spinners do not: spin mode stays what it is.)
func (t *clientTurn) yield(ctx context.Context) (time.Duration, bool) {
	until := t.o.c.handoffs.yieldUntil(t.o.name)
	if until.IsZero() || t.o.c.wire.Load().hub == nil {
		return 0, false
	}
	if ok, _ := t.listening.listen(ctx); !ok {
		return 0, false // the first attempt runs, and listen reports why
	}
	t.list()
	return max(time.Until(until), 0), true
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
	if t.o.handoff && t.o.c.wire.Load().hub != nil {
		t.o.c.handoffs.add(t)
	}
}

func (t *clientTurn) handedOff() bool { return t.handed }

func (t *clientTurn) pause(out outcome) time.Duration { return t.o.sleepFor(out.ttl) }

func (t *clientTurn) done(ctx context.Context, ok bool) {
	if t.s == nil {
		return
	}
	t.o.c.handoffs.remove(t)
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
