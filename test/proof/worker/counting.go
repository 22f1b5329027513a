package main

import (
	"context"

	"github.com/relock-go/relock/rlock"
	"github.com/relock-go/relock/test/proof/history"
)

// setPermits gives a semaphore its permits once, the first time the loop
// uses it, as users are told ("once, by anyone"): TrySetPermits sets them
// only where the semaphore has none.
func (l *loop) setPermits(set func(context.Context, int) (bool, error)) bool {
	if l.permitsSet == l.object {
		return true
	}
	octx, cancel := opCtx()
	defer cancel()
	if _, err := set(octx, l.w.c.permits); err != nil {
		return false
	}
	l.permitsSet = l.object
	return true
}

// semaphore: take a permit, mark in, pause, mark out, release.
func (l *loop) semaphore(ctx context.Context, s *rlock.Semaphore) bool {
	if !l.setPermits(s.TrySetPermits) {
		return false
	}
	take := func(ctx context.Context) error { return s.Acquire(ctx, 1) }
	if _, ok := l.acquire(ctx, "", untokened(take)); !ok {
		return false
	}
	l.inside(nil)
	// Sent once: a permit belongs to nobody, so a second Release after an
	// error could give back one more than was taken.
	octx, cancel := opCtx()
	defer cancel()
	o := l.invoke("release", history.Event{})
	released(o, s.Release(octx, 1))
	return true
}

// pesemaphore: take a leased permit, mark in (unless the permit is lost
// already), pause, mark out, release the permit.
func (l *loop) pesemaphore(ctx context.Context, s *rlock.PermitExpirableSemaphore) bool {
	if !l.setPermits(s.TrySetPermits) {
		return false
	}
	var p *rlock.Permit
	take := func(ctx context.Context) (err error) {
		p, err = s.Acquire(ctx, l.w.c.permitLease)
		return err
	}
	if _, ok := l.acquire(ctx, "", untokened(take)); !ok {
		return false
	}
	end := l.watch(p.Lost(), 0)
	l.inside(p.Lost())
	end()
	l.unlock(func(ctx context.Context) error { return s.ReleasePermit(ctx, p) })
	return true
}

// inside marks the holder in, pauses and marks it out; it does not mark in
// once lost is closed (nil: never).
func (l *loop) inside(lost <-chan struct{}) {
	select {
	case <-lost:
		return
	default:
	}
	octx, cancel := opCtx()
	defer cancel()
	o := l.invoke("enter", history.Event{})
	n, err := l.w.store.Enter(octx, l.object)
	if !finished(o, err, history.Event{Count: n}) {
		return
	}
	l.hold()
	o = l.invoke("leave", history.Event{})
	n, err = l.w.store.Leave(octx, l.object)
	finished(o, err, history.Event{Count: n})
}

// election: campaign until elected, then, as leader, increment the
// election's fenced register with the term's token, and resign.
func (l *loop) election(ctx context.Context, e *rlock.Election) bool {
	var term *rlock.Term
	take := func(ctx context.Context) (token int64, err error) {
		if term, err = e.Campaign(ctx, l.w.c.process); err == nil {
			token = term.Token()
		}
		return token, err
	}
	token, ok := l.acquire(ctx, "", take)
	if !ok {
		return false
	}
	work, stop := term.Context(context.Background())
	end := l.watch(term.Lost(), token)
	l.fencedWork(work, token)
	stop()
	end()
	l.unlock(term.Resign)
	return true
}
