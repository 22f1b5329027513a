package rlock

import (
	"context"
	"errors"
	"time"

	"github.com/redis/go-redis/v9"
)

// turns is a turn-taking policy: how the acquisitions of an owner take
// their turn among the lock's waiters.
type turns interface {
	// start begins the turn-taking of one acquisition by o.
	start(o *owner, deadline time.Time) turn
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
}

// clientTurns is the policy of clientTurn. With shared, a waiter that
// gets the lock wakes the others asleep on its channel in this Client, as
// they may hold it too (readers): a release message wakes one waiter per
// Client.
type clientTurns struct{ shared bool }

func (p clientTurns) start(o *owner, deadline time.Time) turn {
	return &clientTurn{listening: listening{o: o, channel: o.channel, deadline: deadline}, k: o.kind, shared: p.shared}
}

func (t *clientTurn) attempt(ctx context.Context, rdb redis.Scripter, lease time.Duration, holds int) (outcome, error) {
	return t.k.attempt(ctx, rdb, lease, holds)
}

func (t *clientTurn) enter(context.Context) (time.Duration, bool) {
	s, sleep := t.o.c.sleepers().join(t.channel)
	t.s = s
	return sleep, s != nil
}

func (t *clientTurn) listen(ctx context.Context, out outcome) (time.Duration, bool, error) {
	ok, err := t.listening.listen(ctx)
	if !ok {
		return 0, false, err
	}
	return t.s.first(t.o.sleepFor(out.ttl)), true, nil
}

func (t *clientTurn) pause(out outcome) time.Duration { return t.o.sleepFor(out.ttl) }

func (t *clientTurn) done(_ context.Context, ok bool) {
	if t.s == nil {
		return
	}
	if ok {
		t.s.won()
		if t.shared {
			t.s.wakeOthers()
		}
	}
	t.s.close()
}
