package rlock

import (
	"context"
	"time"

	"github.com/relock-go/relock/internal/keys"
	"github.com/relock-go/relock/scripts"
)

// unlockRequest is release request seq of this owner's, which knows its
// hold count as count; the Client's pub/sub must be decided. Called with
// mu held.
func (o *owner) unlockRequest(lease time.Duration, seq uint64, count int) scripts.Unlock {
	if o.record == "" {
		// Named after the hold's field: the sides of an RWMutex share an
		// owner id, not a field.
		o.record = keys.Records(o.name, o.kind.renewal().held.Owner)
	}
	return scripts.Unlock{Owner: o.id, Lease: lease, Record: o.record, Seq: seq, HoldCount: count, RecordTTL: o.c.recordTTL, Publish: o.c.publishCommand()}
}

// nextSeq numbers a new release request. Called with mu held.
func (o *owner) nextSeq() uint64 {
	o.releases++
	return o.releases
}

// unlockSeq is the number of an Unlock request: the one of the previous
// Unlock if that failed without an answer (the caller is retrying it, and
// it may have been applied), else a new one. Called with mu held.
func (o *owner) unlockSeq() uint64 {
	if o.retrySeq == 0 {
		o.retrySeq = o.nextSeq()
	}
	return o.retrySeq
}

// forceRelease deletes the lock whoever holds it and wakes its waiters.
func (o *owner) forceRelease(ctx context.Context) (bool, error) {
	if err := o.usable(); err != nil {
		return false, opError("force unlock", o.name, err)
	}
	if err := o.c.begin(ctx); err != nil {
		return false, opError("force unlock", o.name, err)
	}
	ok, err := o.kind.forceRelease(ctx, o.c.publishCommand())
	return ok, opError("force unlock", o.name, err)
}

// dropLapsed releases in Redis what is left of the owner's last hold if
// it ended without its last Unlock: lost (Lost closes a margin before the
// lease ends, so the hash may still hold the owner's field) or left to
// expire by a last Unlock that could not be confirmed (its retry is made).
// The owner's next acquisition then starts a fresh hold: its count starts
// at one, and a fenced one takes a new token. An RWMutex's side drops its
// sibling's too: a field left of it in the hash would refuse a writer
// (ErrUpgrade) or, beside a reader's renewed hold, live on.
func (o *owner) dropLapsed(ctx context.Context) error {
	if o.sibling != nil {
		if err := o.sibling.dropOwnLapsed(ctx); err != nil {
			return err
		}
	}
	return o.dropOwnLapsed(ctx)
}

// dropOwnLapsed is dropLapsed for the owner's own hold only.
func (o *owner) dropOwnLapsed(ctx context.Context) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.settle()
	h := o.hold
	if h == nil || !lapsed(h) {
		return nil
	}
	lease, _, count := h.terms()
	for ; count > 0; count-- {
		seq := o.unlockSeq()
		reply, err := persist(o.c, ctx, func(ctx context.Context) (scripts.Reply, error) {
			return o.kind.release(ctx, o.unlockRequest(lease, seq, count))
		})
		if err != nil {
			return err
		}
		o.retrySeq = 0
		if reply.Outcome != scripts.StillHeld {
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
