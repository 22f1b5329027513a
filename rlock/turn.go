package rlock

import (
	"context"
	"errors"
	"time"

	"github.com/redis/go-redis/v9"
)

// turn is the turn-taking of one acquisition, used by one goroutine: whom
// it waits behind in this process, what each attempt is, where it listens
// for wake-ups and how long it sleeps. The wait loop (Client.waitLoop) calls
// enter; then attempt, each after a sleep but the first (unless enter
// queued the acquisition), and after a failed one listen, if the turn has
// not listened yet, else pause; until an attempt succeeds or the
// acquisition gives up; then done, always once enter was called.
//
// A lock's turns are clientTurn and fairTurn (see turns); a counting
// object's, countTurn, embedded in the turn of each kind, which adds its
// attempt.
type turn interface {
	// waiter is whom the acquisition is for, as the Client's events and
	// its list of waiters (Activity) name it.
	waiter() WaiterInfo
	// enter is called first, with the deadline of the wait (zero: none),
	// and single for a single attempt (wait 0). It reports whether the
	// acquisition is queued behind others of this Client, and how long to
	// sleep then before its first attempt: it is a waiter from then on. An
	// error ends the acquisition: errWaitElapsed when it may not wait
	// (single) behind others.
	enter(ctx context.Context, deadline time.Time, single bool) (time.Duration, bool, error)
	// attempt makes the attempt due now. It is not cut short by ctx: its
	// outcome must be known, or a lock could be taken that nobody holds.
	attempt(ctx context.Context) (outcome, error)
	// listened reports whether the turn listens for wake-ups.
	listened() bool
	// listen starts listening for wake-ups after a failed attempt that
	// found out; it returns how long to sleep before the next attempt, and
	// false (with the error, nil when the wait elapsed) to give up.
	listen(ctx context.Context, out outcome) (time.Duration, bool, error)
	// sleep sleeps at most d, or until woken (then it reports true); it
	// listens again by itself when the channel moved. An acquisition
	// queued behind others sleeps until its turn comes.
	sleep(ctx context.Context, d time.Duration) (bool, error)
	// pause is how long to sleep, unless woken, after the failed attempt
	// out.
	pause(out outcome) time.Duration
	// acquired completes e, the event of the acquisition's success.
	acquired(e Event) Event
	// done ends the turn-taking; ok reports that the acquisition succeeded.
	done(ctx context.Context, ok bool)
}

// errWaitElapsed ends a wait loop whose wait elapsed, or that may not
// wait: it is no error for the caller.
var errWaitElapsed = errors.New("wait elapsed")

// listening is the part of a turn that sleeps on a channel: its sleeper,
// replaced when the channel moves.
type listening struct {
	c        *Client
	channel  string
	deadline time.Time
	s        sleeper // nil until listening
}

// listen starts listening; false when the deadline passed first.
func (l *listening) listen(ctx context.Context) (bool, error) {
	s, err := l.c.sleepers().listen(ctx, l.deadline, l.channel)
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

// turns is a lock owner's turn-taking policy: how its acquisitions take
// their turn among the lock's waiters.
type turns interface {
	// start begins the turn-taking of one acquisition by o, asked with
	// lease (0: the watchdog's).
	start(o *owner, lease time.Duration) turn
}

// ownerTurn is the turn of a lock owner's acquisition, as the owner's
// attempt (owner.attempt) drives it.
type ownerTurn interface {
	turn
	// send sends the attempt due now to rdb for an owner that holds the
	// lock holds times already, with lease.
	send(ctx context.Context, rdb redis.Scripter, lease time.Duration, holds int) (outcome, error)
	// handedOff reports that a release in this Client passed the lock to
	// this acquisition and set up its hold (see handoffs): no attempt is
	// due. Called with the owner's mu held.
	handedOff() bool
}

// lockTurn is what the turns of a lock owner's acquisition share.
type lockTurn struct {
	listening
	o     *owner
	lease time.Duration // asked (0: the watchdog's)
}

func (t *lockTurn) waiter() WaiterInfo {
	return WaiterInfo{Name: t.o.name, Kind: t.o.kindOf, Mode: t.o.mode, Owner: t.o.id}
}

// queues reports whether the acquisition may wait behind others before its
// first attempt: not a single attempt, nor an owner's that holds the lock
// (a re-entry waits behind nobody).
func (t *lockTurn) queues(single bool) bool { return !single && !t.o.holding() }

func (t *lockTurn) acquired(e Event) Event {
	if h := t.o.currentHold(); h != nil {
		e.Lease, e.Watchdog, e.Count = h.terms()
		e.Reentry = e.Count > 1
	}
	return e
}
