package rlock

import (
	"context"
	"sync"
	"time"
)

// line is where goroutines of this process wait for a slot, in arrival
// order, as sync.RWMutex's waiters do, but with waits that honour a ctx, a
// deadline and the Client's Close. A slot is exclusive (one at a time,
// and no shared one beside it) or shared (any number together). Each
// waiter waits on its own channel, as in golang.org/x/sync/semaphore. The
// invariants, kept by every method under mu:
//
//   - the exclusive slot is never taken with any other slot;
//   - a waiter is in waiting until it is given its slot (its ready channel
//     closed) or gives up, never both: a slot given to a waiter that has
//     just given up is freed again, and so passed on, never lost;
//   - no waiter is given a slot before one that arrived earlier, and a
//     newcomer takes a free slot at once only when nobody waits: a waiter
//     for the exclusive slot keeps newcomers for shared slots out, so that
//     they cannot starve it;
//   - whenever a slot is freed or the head of the line gives up, the
//     waiters at the head are given slots, in order, until one does not
//     fit (so the shared ones right behind a freed exclusive slot go in
//     together), and only they are woken;
//   - freeing a slot that is not taken changes nothing, so that a release
//     retried after a failure does not free a slot twice.
//
// The line counts slots, not goroutines: whoever releases a lock frees a
// slot, as with sync.Mutex, whose Unlock may be called by another
// goroutine than its Lock. A free line costs no timer and no allocation.
// docs/architecture.md lists the lines of the package ("line").
type line struct {
	// closed ends every wait with ErrClosed: the Client's Close. Nil for
	// a line that is never closed.
	closed <-chan struct{}

	mu        sync.Mutex
	exclusive bool       // the exclusive slot is taken
	shared    int        // shared slots taken
	waiting   []*pending // in arrival order
}

// pending is one goroutine's wait for a slot in a line. ready is closed
// when it has been given its slot.
type pending struct {
	shared bool
	ready  chan struct{}
}

// enter takes a slot, shared or not, waiting until deadline (no limit
// when zero; one that has passed makes one try), until ctx ends
// (ctx.Err()) or the line is closed (ErrClosed). It reports whether it
// took the slot.
func (l *line) enter(ctx context.Context, shared bool, deadline time.Time) (bool, error) {
	l.mu.Lock()
	if l.enterNow(shared) {
		l.mu.Unlock()
		return true, nil
	}
	var timeout <-chan time.Time
	if !deadline.IsZero() {
		d := time.Until(deadline)
		if d <= 0 {
			l.mu.Unlock()
			return false, nil
		}
		t := time.NewTimer(d)
		defer t.Stop()
		timeout = t.C
	}
	p := &pending{shared: shared, ready: make(chan struct{})}
	l.waiting = append(l.waiting, p)
	l.mu.Unlock()

	var err error
	select {
	case <-p.ready:
		return true, nil
	case <-timeout:
	case <-ctx.Done():
		err = ctx.Err()
	case <-l.closed:
		err = ErrClosed
	}
	l.giveUp(p)
	return false, err
}

// tryEnter takes a slot, shared or not, if one is free and nobody waits,
// without waiting.
func (l *line) tryEnter(shared bool) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.enterNow(shared)
}

// enterNow takes a slot at once if one fits and nobody waits: a waiter
// for the exclusive slot keeps newcomers for shared slots out. Called
// with mu held.
func (l *line) enterNow(shared bool) bool {
	if len(l.waiting) == 0 && l.fits(shared) {
		l.take(shared)
		return true
	}
	return false
}

// giveUp takes p, whose wait ended, out of the line. A slot given to p
// meanwhile is passed on.
func (l *line) giveUp(p *pending) {
	l.mu.Lock()
	defer l.mu.Unlock()
	select {
	case <-p.ready:
		l.free(p.shared)
	default:
		for i, w := range l.waiting {
			if w == p {
				l.waiting = append(l.waiting[:i], l.waiting[i+1:]...)
				break
			}
		}
		// An exclusive waiter that leaves the head may let the shared
		// ones behind it in.
		l.admit()
	}
}

// leave frees a slot, shared or not, and lets in who can enter. A slot
// that is not taken is left as it is.
func (l *line) leave(shared bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.free(shared)
}

// slots is how many slots of the kind are taken.
func (l *line) slots(shared bool) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	if shared {
		return l.shared
	}
	if l.exclusive {
		return 1
	}
	return 0
}

// downgrade turns the exclusive slot into a shared one, for a writer that
// keeps reading when it releases the write lock.
func (l *line) downgrade() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.exclusive {
		l.exclusive = false
		l.shared++
		l.admit()
	}
}

// fits reports whether a slot of the kind is free now. Called with mu
// held.
func (l *line) fits(shared bool) bool {
	if shared {
		return !l.exclusive
	}
	return !l.exclusive && l.shared == 0
}

// take takes a slot that fits. Called with mu held.
func (l *line) take(shared bool) {
	if shared {
		l.shared++
	} else {
		l.exclusive = true
	}
}

// admit gives free slots to the head of the line, in order, until one
// does not fit. Called with mu held.
func (l *line) admit() {
	for len(l.waiting) > 0 && l.fits(l.waiting[0].shared) {
		p := l.waiting[0]
		l.waiting = l.waiting[1:]
		l.take(p.shared)
		close(p.ready)
	}
}

// free frees a slot, if it is taken, and admits the waiters it lets in.
// Called with mu held.
func (l *line) free(shared bool) {
	switch {
	case shared && l.shared > 0:
		l.shared--
	case !shared && l.exclusive:
		l.exclusive = false
	default:
		return
	}
	l.admit()
}
