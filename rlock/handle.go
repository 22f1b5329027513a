package rlock

import (
	"context"
	"fmt"
	"time"

	"github.com/relock-go/relock/scripts"
)

// enter is every handle's acquisition (Lock, LockWithLease, TryLock and
// their read-side twins): it takes a slot of the handle's line, so that goroutines
// sharing the handle exclude each other without a command to Redis, then
// takes the lock in Redis with what is left of wait. The first acquisition
// of a handle that holds nothing drops what is left in Redis of a hold
// that ended without its last Unlock (dropLapsed), so that it starts a
// fresh hold.
func (o *owner) enter(ctx context.Context, wait, lease time.Duration) (outcome, error) {
	if err := o.usable(); err != nil {
		return outcome{}, err
	}
	var start time.Time
	if wait > 0 {
		start = time.Now() // the line's wait counts against wait
	}
	ok, first, err := o.line.enter(ctx, o.shared, wait)
	if !ok || err != nil {
		return outcome{}, err
	}
	if wait > 0 {
		wait = max(wait-time.Since(start), 0)
	}
	if first {
		err = o.dropLapsed(ctx)
	}
	var out outcome
	if err == nil {
		out, err = o.c.take(ctx, o.turns.start(o, lease), wait)
	}
	if !out.ok {
		o.line.leave(o.shared)
	}
	return out, err
}

// exit is every handle's Unlock: it releases one hold, then the line's
// slot when the handle holds fewer holds than slots (an exclusive handle:
// none). A writer that keeps read holds keeps a read slot.
func (o *owner) exit(ctx context.Context) error {
	err := o.unlock(ctx)
	left := o.liveHolds()
	switch {
	case o.shared:
		if left < o.line.slots(true) {
			o.line.leave(true)
		}
	case left > 0:
	case o.reads != nil && o.reads.liveHolds() > o.line.slots(true):
		o.line.downgrade()
	default:
		o.line.leave(false)
	}
	return err
}

// liveHolds is how many holds this owner has that are not over.
func (o *owner) liveHolds() int {
	h := o.currentHold()
	if h == nil || h.isOver() {
		return 0
	}
	_, _, n := h.terms()
	return n
}

// reenter adds one hold to the lock this owner holds, or, when it holds
// none, that also holds (a writer re-entering as a reader): an error
// wrapping ErrNotHeld when neither holds it. It takes no slot of the
// handle's line: the caller holds the handle.
func (o *owner) reenter(ctx context.Context, also *owner) error {
	if err := o.usable(); err != nil {
		return opError("reenter", o.name, err)
	}
	h := o.currentHold()
	if h != nil && h.isOver() {
		h = nil
	}
	if h == nil && (also == nil || also.liveHolds() == 0) {
		return opError("reenter", o.name, ErrNotHeld)
	}
	out, err := o.c.take(ctx, o.turns.start(o, 0), 0)
	switch {
	case err != nil:
		return opError("reenter", o.name, err)
	case !out.ok:
		return opError("reenter", o.name, fmt.Errorf("%w: lost before the re-entry", ErrNotHeld))
	case h != nil && o.currentHold() != h:
		// The hold ended meanwhile and the attempt took the lock anew:
		// not what re-entry means. Give it back.
		_ = o.unlock(ctx)
		return opError("reenter", o.name, fmt.Errorf("%w: lost before the re-entry", ErrNotHeld))
	}
	return nil
}

// dropLapsed releases in Redis what is left of the owner's last hold if
// it ended without its last Unlock: lost (Lost closes a margin before the
// lease ends, so the hash may still hold the owner's field) or left to
// expire by a last Unlock that could not be confirmed (its retry is made).
// The owner's next acquisition then starts a fresh hold: its count starts
// at one, and a fenced one takes a new token.
func (o *owner) dropLapsed(ctx context.Context) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.settle()
	h := o.hold
	if h == nil || !lapsed(h) {
		return nil
	}
	if _, err := o.c.pubsub(ctx); err != nil {
		return err
	}
	lease, _, count := h.terms()
	for ; count > 0; count-- {
		seq := o.unlockSeq()
		res, err := persist(o.c, ctx, func(ctx context.Context) (scripts.Release, error) {
			return o.kind.release(ctx, o.unlockRequest(lease, seq, count))
		})
		if err != nil {
			return err
		}
		o.retrySeq = 0
		if res != scripts.StillHeld {
			break
		}
	}
	h.released()
	o.hold = nil
	return nil
}

// lapsed reports whether h ended without its last Unlock, or its last
// Unlock could not be confirmed.
func lapsed(h *hold) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.over != nil || h.stopped
}
