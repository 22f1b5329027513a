package rlock

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// handle is a lock owner with the methods that Mutex, FairMutex and each
// side of an RWMutex share: its acquisitions and releases, each through the
// handle's line (owner.line) and the wait loop (Client.waitLoop). A handle
// behaves like a sync.Mutex for the goroutines that share it (an RWMutex's
// read side like a sync.RWMutex's readers), and excludes other owners
// through Redis.
type handle struct{ owner }

// Lock acquires the lock, waiting as long as it takes or until ctx ends,
// and returns ctx.Err() then. While another goroutine holds this handle,
// Lock waits for its Unlock first, in the process; a fair lock is then
// granted in turn (see FairMutex). The watchdog keeps renewing the lease
// (the watchdog timeout) until the last Unlock, until the Client is
// closed, or until the lock is lost (see Lost).
func (h *handle) Lock(ctx context.Context) error {
	_, err := h.owner.enter(ctx, noDeadline, 0)
	return opError("lock", h.name, err)
}

// LockWithLease acquires the lock like Lock, but with a fixed lease: the
// lock expires lease after its last acquisition or partial release unless
// fully released before, and no watchdog renews it. A lease of 0 (Lock is
// the call without one), a negative one or one below 1ms is an error
// wrapping ErrInvalidDuration.
func (h *handle) LockWithLease(ctx context.Context, lease time.Duration) error {
	if err := checkLease(lease); err != nil {
		return opError("lock", h.name, err)
	}
	_, err := h.owner.enter(ctx, noDeadline, lease)
	return opError("lock", h.name, err)
}

// TryLock acquires the lock if it can within wait: wait 0 is a single
// attempt, which returns false at once while another goroutine holds this
// handle (a fair lock's also unless the lock is free and nobody waits: it
// never queues); a positive wait bounds the wait for it and for Redis
// together. A positive lease is fixed (no watchdog); lease 0 lets the
// watchdog keep the lock as Lock does. It returns (true, nil) when the
// lock is held, (false, nil) when wait elapsed first, and (false,
// ctx.Err()) when ctx ended first; either way a fair lock's owner has left
// its queue. A negative wait or lease, or a lease below 1ms, is an error
// wrapping ErrInvalidDuration.
func (h *handle) TryLock(ctx context.Context, wait, lease time.Duration) (bool, error) {
	if err := checkTry(wait, lease); err != nil {
		return false, opError("try lock", h.name, err)
	}
	ok, err := h.acquire(ctx, deadlineAfter(wait), lease)
	return ok, opError("try lock", h.name, err)
}

// acquire is TryLock by deadline (see deadlineAfter), without its argument
// checks: a Member's.
func (h *handle) acquire(ctx context.Context, deadline time.Time, lease time.Duration) (bool, error) {
	out, err := h.owner.enter(ctx, deadline, lease)
	return out.ok, err
}

// Unlock releases one acquisition. Releasing the last one deletes the lock
// and wakes a waiter (a fair lock's next owner in its queue only, even if
// the lock expired meanwhile); releasing an inner one re-arms the hold's
// lease. It returns an error wrapping ErrNotHeld when this owner does not
// hold the lock, whether it never did or lost it (expiry, force-unlock),
// and always once Lost has closed: the owner stopped holding then. A
// request that go-redis retries after a lost reply is applied once.
//
// Unlock is safe with a ctx that has ended (a request's, in a deferred
// call): the release is still sent, detached from ctx and bounded by
// WithUnlockTimeout, and Unlock returns nil when it succeeds. If Redis
// cannot be reached, Unlock returns the error, the watchdog stops renewing
// the lock, and it expires within its lease (Lost closes then); calling
// Unlock again before that retries the same release. Until then the
// handle stays locked for the goroutines sharing it; once the hold has
// ended, it is free again, and its next acquisition first releases what
// is left of the hold in Redis (the retry, made for the caller).
func (h *handle) Unlock(ctx context.Context) error { return h.owner.exit(ctx) }

// Reenter acquires the lock this handle holds once more, without waiting
// (nor queueing): the hash's hold count goes up by one, as a re-entry of
// Redisson's RLock does, and one more Unlock is needed to release it. It
// returns an error wrapping ErrNotHeld when this handle holds no lock
// (never locked, fully unlocked, or lost). A hold taken with a fixed lease
// keeps it; the watchdog keeps the others. Re-entry is explicit: Lock on a
// handle that a goroutine holds waits for its Unlock, as sync.Mutex does.
func (h *handle) Reenter(ctx context.Context) error { return h.owner.reenter(ctx, nil) }

// ForceUnlock deletes the lock whoever holds it and wakes a waiter (a fair
// lock's next owner in its queue, which is kept); it reports whether there
// was a lock. Its owner learns of the loss at its next renewal or Unlock.
// Meant for operators, not for the lock's users.
func (h *handle) ForceUnlock(ctx context.Context) (bool, error) { return h.owner.forceRelease(ctx) }

// Locker returns the handle as a sync.Locker, for code that takes one: it
// excludes the goroutines that use it, and other owners, as Lock does,
// with no deadline. Since sync.Locker cannot return an error, both methods
// panic with it, an *Error (a closed Client, Redis unreachable, Unlock of
// a lock not held), as sync.Mutex does on an unlock of an unlocked mutex.
// Prefer the handle's methods wherever errors can be handled.
func (h *handle) Locker() sync.Locker { return locker{h.Lock, h.Unlock} }

// enter is every handle's acquisition (Lock, LockWithLease, TryLock and
// their read-side twins), by deadline: through the handle's line, so that
// goroutines sharing the handle exclude each other without a command to
// Redis, then in Redis (see Client.waitLoop).
func (o *owner) enter(ctx context.Context, deadline time.Time, lease time.Duration) (outcome, error) {
	if err := o.usable(); err != nil {
		return outcome{}, err
	}
	entry := slot{line: o.line, shared: o.shared, afresh: o}
	return o.c.waitThrough(ctx, &entry, o.turns.start(o, lease), deadline)
}

// exit is every handle's Unlock: it releases one acquisition, then the
// line's slot (leaveSlot). A last Unlock that fails keeps the slot, so
// that its retry is unambiguous, until the hold ends: a retry settles it,
// or the lease, no longer renewed, runs out, or the handle's next
// acquisition releases the hold first (dropLapsed). The hold's end gives
// the slot up then, once, and the retries leave the line alone.
func (o *owner) exit(ctx context.Context) error {
	h := o.currentHold()
	if h != nil && h.keepsSlot() {
		return o.unlock(ctx)
	}
	err := o.unlock(ctx)
	if err != nil && h != nil && h.keepSlot(func(error) { o.leaveSlot(0) }) {
		return err
	}
	o.leaveSlot(o.liveCount())
	return err
}

// leaveSlot gives up the line's slot of a release that left left
// acquisitions of the handle's hold, when that count is below the
// handle's slots (an exclusive handle: zero). A writer that keeps
// reading keeps a read slot.
func (o *owner) leaveSlot(left int) {
	switch {
	case o.shared:
		if left < o.line.slots(true) {
			o.line.leave(true)
		}
	case left > 0:
	case o.sibling != nil && o.sibling.liveCount() > o.line.slots(true):
		o.line.downgrade()
	default:
		o.line.leave(false)
	}
}

// liveCount is the count of this owner's hold, 0 when it is over.
func (o *owner) liveCount() int {
	h := o.currentHold()
	if h == nil || h.isOver() {
		return 0
	}
	_, _, n := h.terms()
	return n
}

// reenter acquires the lock this owner holds once more, or, when it holds
// none, the one that also holds (a writer re-entering as a reader): an error
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
	if h == nil && (also == nil || also.liveCount() == 0) {
		return opError("reenter", o.name, ErrNotHeld)
	}
	out, err := o.c.waitLoop(ctx, o.turns.start(o, 0), deadlineAfter(0))
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
