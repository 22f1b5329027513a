package rlock

import (
	"context"
	"time"

	"github.com/relock-go/relock/pubsub"
)

// turn is the turn-taking of one acquisition, used by one goroutine: what
// each attempt is, and where the acquisition waits before it. A turn does
// no waiting: it says where to wait (a wait), and the wait loop
// (Client.waitLoop) waits there, in this order:
//
//	w := t.enter(single)          // before the first attempt
//	for {
//		wait where w says        // the loop: a slot, a channel, a sleep
//		out := t.attempt(ctx)    // ends the loop once out.ok
//		w = t.next(out)          // after each failed attempt
//	}
//	t.done(ctx, ok)               // always, once enter was called
//
// A lock's turns are clientTurn and fairTurn (see turns); a counting
// object's, countTurn, embedded in the turn of each kind, which adds its
// attempt (semaphoreTurn, permitTurn, latchTurn): a new kind of counting
// object is such a turn and its script.
type turn interface {
	// waiter is whom the acquisition is for, as the Client's events and
	// its list of waiters (Activity) name it.
	waiter() WaiterInfo
	// enter is where the acquisition waits before its first attempt:
	// behind this Client's earlier acquisitions, or nowhere. single: it
	// may not wait, and makes one attempt (its wait may only try a slot,
	// once).
	enter(single bool) wait
	// attempt makes the attempt due now. It is not cut short by ctx: its
	// outcome must be known, or a lock could be taken that nobody holds.
	attempt(ctx context.Context) (outcome, error)
	// next is where the acquisition waits after the failed attempt out,
	// before the next one.
	next(out outcome) wait
	// done ends the turn-taking: it leaves what its waits took (slots,
	// channels, a place in a queue); ok reports that the acquisition
	// succeeded.
	done(ctx context.Context, ok bool)
}

// wait is where an acquisition waits before its next attempt, as its turn
// says. The wait loop takes each part in order, when given and not had
// already: the slot, then listening on the channel, then the sleep; the
// zero wait attempts at once. The acquisition is a waiter (Activity,
// EventWaitStarted) once it listens, or from the start of a wait that does
// not listen (a single attempt never is).
type wait struct {
	// slot is a slot of a line to take first: waited for in arrival
	// order, within the acquisition's deadline.
	slot *slot
	// listen is where the acquisition listens for wake-ups, subscribing
	// first if it does not listen yet; nil: it sleeps on a timer.
	listen *listening
	// sleep is how long to sleep then, unless a wake-up comes first (0:
	// attempt at once); until, when set, is when to attempt instead,
	// however long the slot and the channel took (stepping aside until a
	// moment). The acquisition's deadline caps either, and ends it once it
	// has passed; an until after that deadline, or after ctx's, ends it at
	// once, unless the wait is optional (a rate limiter's permits that come
	// back too late).
	sleep time.Duration
	until time.Time
	// optional: when the slot or the channel cannot be had (the deadline
	// passed, ctx ended, the Client closed), the attempt is made at once
	// without them. For the waits before a first attempt that are a
	// courtesy to others (stepping aside, keeping a queue place).
	optional bool
}

// slot is a slot of a line that an acquisition waits for: the wait loop
// takes it (waiting in the line); the turn leaves it, or, for a lock
// handle's slot, the handle, which keeps it while it holds the lock.
type slot struct {
	line   *line
	shared bool
	held   bool
	// afresh, when set, is told once the slot is held, before the
	// acquisition begins (Client.waitThrough's entry): a lock handle's
	// owner drops what is left of a hold that lapsed.
	afresh interface{ dropLapsed(context.Context) error }
}

// try takes the slot if it is free and nobody waits for it, without
// waiting, and reports whether it did.
func (s *slot) try() bool {
	s.held = s.line.tryEnter(s.shared)
	return s.held
}

// leave frees the slot, if it is held.
func (s *slot) leave() {
	if s.held {
		s.line.leave(s.shared)
		s.held = false
	}
}

// listening is the part of a turn that listens on a channel for
// wake-ups: the wait loop begins it (progress.ready) and sleeps on it; the
// turn ends it (done).
type listening struct {
	c       *Client
	channel string
	s       sleeper // nil until listening
	// kept, when set, may hand over a subscription kept for this wait (a
	// fair owner's, of its last wait), taken before subscribing anew.
	kept interface{ takeKept() sleeper }
	// listener, when set, is told once the wait listens (a Mutex's waiter
	// is listed then among those its Client's releases may pass the lock
	// to).
	listener interface{ listened() }
}

// sub is the subscription the turn listens on: nil when it spins (a
// spinner hears no release).
func (l *listening) sub() *pubsub.Subscription {
	if s, ok := l.s.(subscription); ok {
		return s.sub
	}
	return nil
}

// after is the wait after a failed attempt that found the lock or object
// busy for pause: on the channel, listening first if need be. A waiter
// that begins to listen on a subscription attempts again at once, since a
// release may have come before it subscribed; a spinner has nothing to
// catch up on and sleeps pause.
func (l *listening) after(pause time.Duration) wait {
	if l.s == nil && l.c.hears() {
		pause = 0
	}
	return wait{listen: l, sleep: pause}
}

// won tells the channel that the acquisition, woken by a release, took
// what it waited for: the subscription keeps the Client's share of the
// channel's releases (pubsub's share). With shared, the others asleep on
// the channel are woken too: they may take the lock beside it (readers).
func (l *listening) won(shared bool) {
	if sub := l.sub(); sub != nil {
		sub.Won()
		if shared {
			sub.WakeOthers()
		}
	}
}
