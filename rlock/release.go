package rlock

import (
	"context"
	"time"

	"github.com/relock-go/relock/scripts"
)

// unlock releases one acquisition and updates the hold by the outcome. The
// request is made even when ctx has ended (see persist). When the last
// acquisition's release cannot be confirmed, the watchdog stops renewing
// the hold, so the lock expires within its lease (and Lost closes then)
// unless a retried Unlock releases it first.
func (o *owner) unlock(ctx context.Context) error {
	if err := o.usable(); err != nil {
		return opError("unlock", o.name, err)
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.settle()
	h := o.hold
	if h != nil && h.isOver() {
		// Lost: the owner stopped holding when Lost closed, even if the
		// hash still has its field for the margin (the next acquisition
		// drops it: dropLapsed).
		return opError("unlock", o.name, ErrNotHeld)
	}
	r := o.beginRelease(h)
	if r.to != nil {
		heir, _ := r.to.heir()
		defer heir.mu.Unlock()
	}
	if h != nil {
		h.setReleasing(true)
		defer h.setReleasing(false)
	}
	reply, err := o.sendRelease(ctx, &r)
	if err != nil {
		// Outcome unknown: a retry of this Unlock is the same request.
		if h != nil && r.count <= 1 {
			h.stopRenewal()
		}
		return opError("unlock", o.name, named(ctx, o.c.rdb, o.name, "lock", err))
	}
	o.retrySeq, o.bareSeq = 0, 0
	switch reply.Outcome {
	case scripts.StillHeld:
		if h != nil {
			h.partlyReleased(r.sent)
		}
		o.released(ctx, r.sent, h, max(r.count-1, 1))
		return nil
	case scripts.Released, scripts.Heard, scripts.HandedOff:
		o.freed(ctx, &r, h, reply)
		return nil
	}
	return o.notHeld(ctx, h)
}

// releaseRequest is one Unlock's release request, as the owner makes it.
type releaseRequest struct {
	lease time.Duration // the hold's
	count int           // the hold count the owner knows (0: no hold)
	seq   uint64        // the request's number (unlockSeq)
	sent  time.Time
	// bare: its first send is bare (scripts.Unlock.Bare); cleared once
	// sent.
	bare bool
	// to is the waiter of this Client the release passes the lock to (a
	// hand-off), reserved; nil: the release frees the lock.
	to recipient
}

// beginRelease begins the release of one acquisition of hold h (nil: the
// owner knows of none), passing the lock on to a waiter of this Client
// when the owner's turns reserve one for the last acquisition. Called
// with mu held.
func (o *owner) beginRelease(h *hold) releaseRequest {
	r := releaseRequest{lease: o.c.opts.watchdogTimeout}
	if h != nil {
		r.lease, _, r.count = h.terms()
	}
	if h != nil && r.count == 1 && o.retrySeq == 0 {
		r.to = o.turns.passOn(o)
	}
	r.sent = time.Now()
	fresh := o.retrySeq == 0
	r.seq = o.unlockSeq()
	r.bare = fresh && r.count == 1 && r.to == nil && o.kind.bare()
	return r
}

// sendRelease sends r, through persist, and reports its reply: a resend
// of a bare request whose send failed, finding neither the hold nor a
// record, reads as released while the hold's lease lasts.
func (o *owner) sendRelease(ctx context.Context, r *releaseRequest) (scripts.Reply, error) {
	reply, err := persist(o.c, ctx, func(ctx context.Context) (scripts.Reply, error) {
		u := o.unlockRequest(r.lease, r.seq, r.count)
		u.Count = o.c.countDue(o.channel)
		if r.to != nil {
			heir, lease := r.to.heir()
			u.Next = heir.id
			u.NextLease, _ = heir.leaseOf(lease)
		}
		if r.bare {
			// Sent once; any send after it is recorded.
			r.bare, u.Bare = false, true
			res, err := o.kind.release(ctx, u)
			if err == nil {
				return res, nil
			}
			o.bareSeq = r.seq // applied or not, nobody knows
			if !o.c.resends || ctx.Err() != nil {
				return res, err
			}
			u.Bare = false
		}
		return o.kind.release(ctx, u)
	})
	if err == nil && reply.Outcome == scripts.NotHeld && o.bareSeq == r.seq && o.hold.heldUntil(time.Now()) {
		// A resend of a bare request whose send failed found neither the
		// hold nor a record: the bare send released it, since the lease
		// could not have ended yet. (A force-unlock meanwhile reads the
		// same: the lock is not held either way.)
		reply.Outcome = scripts.Released
	}
	return reply, err
}

// freed ends hold h (nil when the owner knew of none) after release r
// freed the lock or passed it on, with the script's reply: the owner's
// turns are told, the step-aside recorded when others heard it, and the
// waiter passed the lock holds it.
func (o *owner) freed(ctx context.Context, r *releaseRequest, h *hold, reply scripts.Reply) {
	o.turns.released(o, reply)
	d, _ := o.c.listenersAt(o.channel, reply.Listeners)
	res := reply.Outcome
	if res == scripts.Heard || (res == scripts.Released && o.waited && o.c.classicCluster()) {
		// (With classic pub/sub on a Redis Cluster, PUBLISH counts the
		// subscribers of one node only: a hold taken after a wait is
		// taken to have had waiters elsewhere.)
		o.c.asides.heard(o.name, d)
	}
	if res == scripts.HandedOff && r.to != nil {
		// (A retry of an earlier Unlock may report a hand-off that
		// reserved nobody now: that waiter's next attempt finds the lock
		// its own, as a retried acquisition.)
		r.to.handedOver(r.sent)
	}
	if h != nil {
		h.released()
	}
	o.hold = nil
	o.released(ctx, r.sent, h, 0)
}

// notHeld is the error of a release that found the lock not held by the
// owner: hold h (nil when the owner knew of none) was lost meanwhile, or
// the name holds a hash that is no lock.
func (o *owner) notHeld(ctx context.Context, h *hold) error {
	if h != nil {
		// Held as far as this owner knew: the lock was lost meanwhile.
		h.setReleasing(false)
		h.lostNow(lostAtRelease, false)
	}
	o.hold = nil
	if h == nil {
		if _, err := scripts.State(ctx, o.c.rdb, o.name); isWrongType(err) {
			return opError("unlock", o.name, err) // a hash that is no lock
		}
	}
	return opError("unlock", o.name, ErrNotHeld)
}

// released reports a release, asked under ctx and sent at sent, that left
// left acquisitions of hold h (nil when the owner knew of none) to the
// Client's observers.
func (o *owner) released(ctx context.Context, sent time.Time, h *hold, left int) {
	if o.c.obs == nil {
		return
	}
	e := o.event(EventReleased)
	e.Context, e.Latency, e.Count = ctx, e.Time.Sub(sent), left
	if h != nil {
		e.Held = e.Time.Sub(h.since)
	}
	o.c.obs.ObserveLock(e)
}
