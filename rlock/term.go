package rlock

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/relock-go/relock/scripts"
)

// Term is one term of an Election: its leader's hold of the election's
// lock, from its election to its end. It ends by Resign, or otherwise
// (then Lost closes): its lock was lost (renewals could not reach Redis
// within its lease, the lock was deleted), or its Client closed. Its
// methods are safe for concurrent use.
type Term struct {
	e     *Election
	m     *FairMutex
	token int64
	since time.Time // by the Redis server's clock
	began time.Time // by this process's, for the term's length

	// ops serialises Proclaim and Resign, so that the log follows them in
	// order.
	ops sync.Mutex

	mu    sync.Mutex
	value string
	lost  chan struct{}
	over  error // why the term ended: ErrNotHeld (resigned), ErrLost, ErrClosed; nil while on
	ends  callbacks
	// stopHold cancels the call of holdEnded when the hold ends; nil until
	// it is arranged.
	stopHold func()
}

// newTerm records the term rec of m's hold, with value, as one of the
// Client's terms.
func newTerm(e *Election, m *FairMutex, rec scripts.Term, value string) *Term {
	t := &Term{e: e, m: m, token: rec.Token, since: rec.Since, began: time.Now(), value: value, lost: make(chan struct{})}
	electionsOf.in(e.c).add(t)
	stop := m.whenEnds(t.holdEnded) // at once if the hold is over
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.over == nil {
		t.stopHold = stop
	}
	return t
}

// Token is the term's fencing token: greater than the token of every
// earlier term of the election, and than every token granted before by
// the fenced lock of the same name (Redisson's RFencedLock). Pass it with
// every write the leader makes, and have the storage reject a write whose
// token is lower than the highest it has seen (see docs/election.md).
func (t *Term) Token() int64 { return t.token }

// Since is when the term began, by the Redis server's clock.
func (t *Term) Since() time.Time { return t.since }

// Value is the leader's value: the one it campaigned with, or the last it
// proclaimed.
func (t *Term) Value() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.value
}

// Owner is the term's owner id, its field in the election's lock hash.
func (t *Term) Owner() string { return t.m.Owner() }

// Leader is the term as a Leader.
func (t *Term) Leader() Leader {
	return Leader{Value: t.Value(), Token: t.token, Since: t.since, Owner: t.m.Owner()}
}

// Lost returns a channel that is closed when the term ends other than by
// Resign: its lock was lost (as FairMutex.Lost tells it: a margin before
// Redis can expire it, so before the next leader can be elected), a
// Proclaim found the lock gone, or its Client closed. The leader must
// then stop acting as one. It is never closed after a Resign that
// succeeded. Like FairMutex.Lost, a call made once the lock's loss moment
// has passed finds the term lost, before the timer watching the lease
// fires.
func (t *Term) Lost() <-chan struct{} {
	t.checkLease()
	return t.lost
}

// checkLease ends the term's hold as lost if its loss moment has passed
// (the hold's end ends the term).
func (t *Term) checkLease() { t.m.Lost() }

// Context returns a copy of parent that is cancelled when the term ends:
// lost (context.Cause is ErrLost; ErrClosed when the Client closed) or
// resigned (ErrNotHeld), or when parent ends, or when the returned cancel
// is called. Run the leader's work under it; its Err, like Lost, finds the
// term lost once the loss moment has passed. It starts no goroutine; call
// cancel when done with it.
func (t *Term) Context(parent context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(parent)
	t.mu.Lock()
	if over := t.over; over != nil {
		t.mu.Unlock()
		cancel(over)
		return ctx, func() { cancel(context.Canceled) }
	}
	id := t.ends.add(cancel)
	t.mu.Unlock()
	return checkedContext{ctx, t.checkLease}, func() {
		t.mu.Lock()
		t.ends.remove(id)
		t.mu.Unlock()
		cancel(context.Canceled)
	}
}

// begin begins an operation that changes the term (Proclaim, Resign): it
// takes ops, which the caller must unlock, and returns nil; or it returns
// why the term cannot be changed (ErrClosed, ErrNotHeld once it is over).
func (t *Term) begin() error {
	if err := t.e.usable(); err != nil {
		return err
	}
	t.ops.Lock()
	t.mu.Lock()
	over := t.over
	t.mu.Unlock()
	if over != nil {
		t.ops.Unlock()
		return ErrNotHeld
	}
	return nil
}

// Proclaim changes the leader's value to value, without an election: the
// log records it and observers see it. It returns an error wrapping
// ErrNotHeld when the term is over (resigned or lost; when Proclaim finds
// the lock gone, the term is lost: Lost closes).
func (t *Term) Proclaim(ctx context.Context, value string) error {
	const op = "proclaim"
	e := t.e
	if err := t.begin(); err != nil {
		return opError(op, e.name, err)
	}
	defer t.ops.Unlock()
	n, err := e.el.Proclaim(ctx, e.c.rdb, t.m.Owner(), t.token, value, e.writes())
	switch {
	case err != nil:
		return opError(op, e.name, err)
	case n == scripts.LockGone:
		t.m.lose(lostAtProclaim)
		t.finish(ErrLost)
		return opError(op, e.name, ErrNotHeld)
	case n != scripts.ProclaimedValue:
		return opError(op, e.name, ErrNotHeld)
	}
	t.mu.Lock()
	t.value = value
	t.mu.Unlock()
	if obs := e.c.obs; obs != nil {
		ev := t.event(EventProclaimed)
		ev.Context = ctx
		obs.ObserveLock(ev)
	}
	return nil
}

// Resign ends the term: the log records that the election has no leader,
// and the lock passes to the next candidate at once, inside the release
// script (pub/sub speed). Lost is not closed. It returns an error wrapping
// ErrNotHeld when the term is over already (Lost has closed, or Resign
// succeeded before). As Unlock, Resign is safe with a ctx that has ended:
// its requests are still sent, bounded by WithUnlockTimeout. When Redis
// cannot be reached it returns the error, and the term ends when its
// lease does (Lost closes then); calling Resign again retries.
func (t *Term) Resign(ctx context.Context) error {
	const op = "resign"
	e := t.e
	if err := t.begin(); err != nil {
		return opError(op, e.name, err)
	}
	defer t.ops.Unlock()
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), e.c.opts.unlockTimeout)
	defer cancel()
	// Recorded first: the log never shows this term after the lock has
	// passed to the next, whose term it shows next.
	_, recErr := e.el.End(rctx, e.c.rdb, t.m.Owner(), t.token, scripts.Resigned, e.writes())
	err := t.m.Unlock(ctx)
	switch {
	case err == nil:
		t.finish(ErrNotHeld)
		return nil
	case errors.Is(err, ErrNotHeld):
		t.finish(ErrLost)
		return opError(op, e.name, ErrNotHeld)
	case recErr != nil:
		err = recErr
	}
	return opError(op, e.name, err)
}

// holdEnded is called when the term's hold ends. A release is Resign's or
// Close's, which end the term themselves; a loss or the Client's Close
// ends it here, and a loss's end is recorded in the log in the
// background (Close records its own).
func (t *Term) holdEnded(cause error) {
	if cause == ErrNotHeld {
		return
	}
	if ended := t.finish(cause); !ended || cause != ErrLost {
		return
	}
	e := t.e
	e.c.inBackground(func(ctx context.Context) {
		_, _ = e.el.End(ctx, e.c.rdb, t.m.Owner(), t.token, scripts.Ended, e.writes())
	})
}

// closeByClient ends the term because its Client closes (Close, before
// anything stops): Lost closes, the log records the end, and the lock is
// released, so that the next candidate is elected at once.
func (t *Term) closeByClient() {
	if !t.finish(ErrClosed) {
		return
	}
	e := t.e
	ctx, cancel := context.WithTimeout(context.Background(), e.c.opts.unlockTimeout)
	defer cancel()
	_, _ = e.el.End(ctx, e.c.rdb, t.m.Owner(), t.token, scripts.Ended, e.writes())
	_ = t.m.Unlock(ctx)
}

// finish ends the term for cause, once: a cause other than ErrNotHeld (a
// resignation) closes Lost; the functions given to Context are called; the
// Election may campaign again; the observers hear of it. It reports
// whether the term was on.
func (t *Term) finish(cause error) bool {
	t.mu.Lock()
	if t.over != nil {
		t.mu.Unlock()
		return false
	}
	t.over = cause
	if cause != ErrNotHeld {
		close(t.lost)
	}
	ends, stop := t.ends.take(), t.stopHold
	t.mu.Unlock()
	if stop != nil {
		stop()
	}
	electionsOf.in(t.e.c).remove(t)
	t.e.line.leave(false)
	for _, c := range ends {
		c.f(cause)
	}
	if obs := t.e.c.obs; obs != nil {
		ev := t.event(EventResigned)
		if cause != ErrNotHeld {
			ev.Type, ev.Err = EventTermLost, cause
		}
		ev.Held = ev.Time.Sub(t.began)
		obs.ObserveLock(ev)
	}
	return true
}

// event is an event of type t about this term, happening now.
func (t *Term) event(typ EventType) Event {
	ev := t.m.event(typ)
	ev.Token = t.token
	return ev
}
