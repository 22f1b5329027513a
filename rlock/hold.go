package rlock

import (
	"fmt"
	"sync"
	"time"

	"github.com/relock-go/relock/scripts"
)

// hold is one owner's holding of a lock, from its first acquisition to its
// last release or its loss: the record of what the owner holds, kept in
// step with Redis by the owner's commands and the watchdog's renewals.
//
// Its transitions, each a method: acquired (newHold), reentered,
// partlyReleased, released, lost. Between them, renewed and setLease move
// the end of its lease, and stopRenewal (a last Unlock that could not be
// confirmed) leaves it to expire. The watchdog's timer of the hold's phase
// ends it as lost when the lease ends with no renewal having reached
// Redis (a hold has no timer of its own). Once released or lost, a hold is
// over and never comes back: a new acquisition makes a new hold.
//
// A hold is made at every first acquisition, so it is kept small: the
// lost channel is made when first asked for (most holds are released
// without anyone asking), and no closure or timer is made per hold.
type hold struct {
	by      *owner
	key     string
	renewal renewal   // what the watchdog renews, if it keeps this hold
	since   time.Time // when the first acquisition was sent
	phase   int       // the watchdog's phase that renews and watches it

	mu        sync.Mutex
	count     int           // acquisitions not yet released
	lease     time.Duration // re-armed by reentry, partial release and renewal
	renew     bool          // kept alive by the watchdog
	stopped   bool          // renewal ended by an unconfirmed last release
	keeps     bool          // keeps its handle's slot until it ends (keepSlot)
	releasing bool          // a release is in flight: absence is not loss
	deadline  time.Time     // latest time the lease is known to last
	renewedAt time.Time     // when the last renewal was sent; zero before
	lost      chan struct{} // made on first use (lostChan); nil before
	over      error         // why the hold ended (ErrNotHeld, ErrLost, ErrClosed); nil while held
	ends      callbacks
}

// lossMargin is how long before the known end of a lease a hold counts as
// lost: Redlock's allowance for clock drift (1% of the lease) plus 2 ms for
// a timer that fires late, so that the owner hears of the loss before
// Redis lets another owner take the lock.
func lossMargin(lease time.Duration) time.Duration { return lease/100 + 2*time.Millisecond }

// lossAtLocked is when h counts as lost, unless its lease is extended.
// Called with h.mu held.
func (h *hold) lossAtLocked() time.Time { return h.deadline.Add(-lossMargin(h.lease)) }

// lossAt is lossAtLocked, and whether the hold is still on.
func (h *hold) lossAt() (time.Time, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.lossAtLocked(), h.over == nil
}

// newHold records a first acquisition by o, whose lease was set by a
// command sent at sent. renew says whether the watchdog renews it; the
// caller gives it to the watchdog (watchdog.keep), which watches its
// lease either way.
func newHold(o *owner, lease time.Duration, renew bool, sent time.Time) *hold {
	return &hold{by: o, key: o.name, renewal: o.kind.renewal(), since: sent, count: 1, lease: lease, renew: renew, deadline: sent.Add(lease)}
}

// lostChan is the channel closed when the hold is lost: made on first
// use; closed already when the hold was lost, never closed once released.
func (h *hold) lostChan() <-chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.lost == nil {
		h.lost = make(chan struct{})
	}
	return h.lost
}

// isOver reports whether the hold was released or lost.
func (h *hold) isOver() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.over != nil
}

// terms are the hold's lease, whether the watchdog keeps it, and its hold
// count.
func (h *hold) terms() (lease time.Duration, renew bool, count int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.lease, h.renew, h.count
}

// reentered records one more acquisition, sent at sent, which re-armed the
// lease and resumes a renewal that an unconfirmed release had stopped.
func (h *hold) reentered(sent time.Time) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.count++
	h.stopped = false
	h.extendLocked(sent.Add(h.lease))
}

// partlyReleased records a release, sent at sent, that left acquisitions.
func (h *hold) partlyReleased(sent time.Time) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.count--
	h.extendLocked(sent.Add(h.lease))
}

// renewed records a renewal sent at sent.
func (h *hold) renewed(sent time.Time) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.renewedAt = sent
	h.extendLocked(sent.Add(h.lease))
}

// extendLocked moves the end of the lease to d if that is later. (The
// watchdog's timer, set for the earlier end, finds it moved.)
func (h *hold) extendLocked(d time.Time) {
	if h.over == nil && d.After(h.deadline) {
		h.deadline = d
	}
}

// setLease records that the lease was set to lease by a command sent at
// sent: later re-arms use it, and it now ends at sent + lease, even if
// that is sooner than before.
func (h *hold) setLease(lease time.Duration, sent time.Time) {
	h.mu.Lock()
	if h.over != nil {
		h.mu.Unlock()
		return
	}
	h.lease, h.deadline = lease, sent.Add(lease)
	at := h.lossAtLocked()
	h.mu.Unlock()
	// The lease may end sooner than the watchdog's timer was set for.
	h.by.c.wd.watch(h.phase, at)
}

// leaseEnd is when the lease is known to end, and the lease; zero once the
// hold is over.
func (h *hold) leaseEnd() (time.Time, time.Duration) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.over != nil {
		return time.Time{}, 0
	}
	return h.deadline, h.lease
}

// heldUntil reports whether the hold's lease is known to last past t: a
// hold, not over, whose loss moment (lossAt) is after t. False for a nil
// hold.
func (h *hold) heldUntil(t time.Time) bool {
	if h == nil {
		return false
	}
	at, on := h.lossAt()
	return on && at.After(t)
}

// renewable reports whether the watchdog should renew the hold now.
func (h *hold) renewable() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.over == nil && h.renew && !h.stopped
}

// setReleasing marks whether a release is in flight, so that a renewal
// that finds the lock already released does not report it lost.
func (h *hold) setReleasing(on bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.releasing = on
}

// stopRenewal ends the watchdog's renewal after a last release that could
// not be confirmed: the lock expires within its lease unless a retried
// release or a new acquisition comes first.
func (h *hold) stopRenewal() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.stopped = true
}

// keepSlot arranges, once the hold's last release could not be confirmed
// (stopRenewal), that its handle's slot is kept until the hold ends, when
// give gives it up: it reports whether it did, false when the release was
// confirmed, the hold re-entered or ended meanwhile, or a slot is kept
// already.
func (h *hold) keepSlot(give func(error)) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.stopped || h.keeps || h.over != nil {
		return false
	}
	h.keeps = true
	h.ends.add(give)
	return true
}

// keepsSlot reports whether the hold keeps its handle's slot until it ends
// (keepSlot).
func (h *hold) keepsSlot() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.keeps
}

// How holds are lost (hold.lostNow), as events tell it.
const (
	lostAtRenewal  = "a renewal found the lock gone"
	lostAtRelease  = "a release found the lock gone"
	lostAtExtend   = "an extension found the lock gone"
	lostAtClaim    = "the claim of a grant found the lock gone"
	lostAtProclaim = "a proclamation found the lock gone"
	lostByExpiry   = "the lease ran out before a renewal reached Redis"
)

// released records the last release.
func (h *hold) released() { h.end(ErrNotHeld, "", false) }

// lostNow records that the lock is no longer held: a renewal, a release
// or an extension found it gone (why). A renewal's finding is ignored
// while a release is in flight (fromRenewal).
func (h *hold) lostNow(why string, fromRenewal bool) { h.end(ErrLost, why, fromRenewal) }

// closed records that the Client closed: nothing keeps or watches the hold.
func (h *hold) closed() { h.end(ErrClosed, "", false) }

// expire runs when the watchdog finds the hold's loss time passed: unless
// the lease was extended meanwhile, it is about to run out (lossMargin)
// without a renewal having reached Redis.
func (h *hold) expire() {
	h.mu.Lock()
	if time.Now().Before(h.lossAtLocked()) {
		h.mu.Unlock()
		return
	}
	h.endLocked(ErrLost, lostByExpiry, false)
}

// end ends the hold for cause, once: loss and Close close lost; the
// watchdog forgets it; every function given to onEnd is called, and a loss
// is reported to the Client's observers.
func (h *hold) end(cause error, why string, fromRenewal bool) {
	h.mu.Lock()
	h.endLocked(cause, why, fromRenewal)
}

// endLocked is end with mu held; it unlocks mu before calling anything.
func (h *hold) endLocked(cause error, why string, fromRenewal bool) {
	if h.over != nil || (fromRenewal && h.releasing) {
		h.mu.Unlock()
		return
	}
	h.over = cause
	if cause != ErrNotHeld {
		if h.lost == nil {
			h.lost = closedChan
		} else {
			close(h.lost)
		}
	}
	ends := h.ends.take()
	count := h.count
	h.mu.Unlock()
	h.by.c.wd.forget(h)
	for _, c := range ends {
		c.f(cause)
	}
	if cause == ErrLost && h.by.c.obs != nil {
		e := h.by.event(EventLost)
		e.Count, e.Held, e.Err = count, e.Time.Sub(h.since), fmt.Errorf("%w: %s", ErrLost, why)
		h.by.c.obs.ObserveLock(e)
	}
}

// onEnd arranges for f to be called with the cause when the hold ends: at
// once if it has. The returned function cancels the arrangement.
func (h *hold) onEnd(f func(error)) (cancel func()) {
	h.mu.Lock()
	if over := h.over; over != nil {
		h.mu.Unlock()
		f(over)
		return func() {}
	}
	defer h.mu.Unlock()
	id := h.ends.add(f)
	return func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		h.ends.remove(id)
	}
}

// renewal is what the watchdog renews for one hold: the owner's field of
// the lock's hash, with its kind's renew script.
type renewal struct {
	renew scripts.Renewer
	held  scripts.Held
}

// closedChan is the Lost channel of an owner that holds nothing.
var closedChan = func() chan struct{} {
	ch := make(chan struct{})
	close(ch)
	return ch
}()
