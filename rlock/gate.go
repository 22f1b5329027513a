package rlock

import (
	"context"
	"sync"
	"time"
)

// gate is the in-process exclusion of one lock handle, as a sync.RWMutex
// gives it, with waits that honour a ctx and a wait limit. The goroutines
// that share a handle pass its gate before they go to Redis: one at a
// time for an exclusive lock (a writer), any number together for a read
// lock, so that goroutines of one process exclude each other as they
// exclude other processes, and none of them sends a command while it
// waits at the gate.
//
// Waiters queue in arrival order, each on its own channel, as in
// golang.org/x/sync/semaphore: a freed slot is handed to the head of the
// line (and to the readers right behind it, together), so that a release
// wakes only the goroutines that can enter, and a waiting writer keeps
// newcomer readers out, as sync.RWMutex does, so that readers cannot
// starve it. The sides of an RWMutex share one gate.
//
// The gate counts slots, not goroutines: whoever releases the lock
// releases a slot, as with sync.Mutex, whose Unlock may be called by
// another goroutine than its Lock.
type gate struct {
	mu      sync.Mutex
	writer  bool         // the writer's slot is taken
	readers int          // read slots taken
	line    []*gateEntry // waiters, in arrival order
}

// gateEntry is one waiter in a gate's line. ready is closed when it has
// been given its slot; first then says that no other slot was taken.
type gateEntry struct {
	shared bool
	first  bool
	ready  chan struct{}
}

// enter takes a slot, shared or not, waiting at most wait (forever when
// negative; wait 0 makes one try), until ctx ends (ctx.Err()) or until
// closed is closed (ErrClosed). It reports whether it took the slot, and
// first that no other slot was taken: the acquisition is the handle's
// first since it last held nothing. A free gate costs no timer.
func (g *gate) enter(ctx context.Context, closed <-chan struct{}, shared bool, wait time.Duration) (ok, first bool, err error) {
	g.mu.Lock()
	if len(g.line) == 0 && g.fits(shared) {
		first = g.takeLocked(shared)
		g.mu.Unlock()
		return true, first, nil
	}
	if wait == 0 {
		g.mu.Unlock()
		return false, false, nil
	}
	e := &gateEntry{shared: shared, ready: make(chan struct{})}
	g.line = append(g.line, e)
	g.mu.Unlock()

	var timeout <-chan time.Time
	if wait > 0 {
		t := time.NewTimer(wait)
		defer t.Stop()
		timeout = t.C
	}
	select {
	case <-e.ready:
		return true, e.first, nil
	case <-timeout:
	case <-ctx.Done():
		err = ctx.Err()
	case <-closed:
		err = ErrClosed
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	select {
	case <-e.ready:
		// Given the slot while giving up: hand it on.
		g.freeLocked(shared)
	default:
		for i, w := range g.line {
			if w == e {
				g.line = append(g.line[:i], g.line[i+1:]...)
				break
			}
		}
		// A writer that leaves the head may let the readers behind it in.
		g.admitLocked()
	}
	return false, false, err
}

// fits reports whether a slot of the kind is free now. Called with mu
// held.
func (g *gate) fits(shared bool) bool {
	if shared {
		return !g.writer
	}
	return !g.writer && g.readers == 0
}

// takeLocked takes a slot that fits and reports whether it is the only
// one taken. Called with mu held.
func (g *gate) takeLocked(shared bool) (first bool) {
	first = !g.writer && g.readers == 0
	if shared {
		g.readers++
	} else {
		g.writer = true
	}
	return first
}

// admitLocked gives free slots to the head of the line, in order, until
// one does not fit. Called with mu held.
func (g *gate) admitLocked() {
	for len(g.line) > 0 && g.fits(g.line[0].shared) {
		e := g.line[0]
		g.line = g.line[1:]
		e.first = g.takeLocked(e.shared)
		close(e.ready)
	}
}

// freeLocked frees a slot and admits the waiters it lets in. A slot that
// is not taken is left as it is. Called with mu held.
func (g *gate) freeLocked(shared bool) {
	switch {
	case shared && g.readers > 0:
		g.readers--
	case !shared && g.writer:
		g.writer = false
	default:
		return
	}
	g.admitLocked()
}

// leave frees a slot, shared or not, and lets in who can enter. A slot
// that is not taken is left as it is: an Unlock retried after a failure
// frees nothing twice.
func (g *gate) leave(shared bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.freeLocked(shared)
}

// slots is how many slots of the kind are taken.
func (g *gate) slots(shared bool) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	if shared {
		return g.readers
	}
	if g.writer {
		return 1
	}
	return 0
}

// downgrade turns the writer's slot into a read slot, for a writer that
// keeps read holds when it releases the write lock.
func (g *gate) downgrade() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.writer {
		g.writer = false
		g.readers++
		g.admitLocked()
	}
}
