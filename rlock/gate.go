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
// waits at the gate. A waiting writer keeps newcomer readers out, as
// sync.RWMutex does, so that readers cannot starve it. The sides of an
// RWMutex share one gate.
//
// The gate counts slots, not goroutines: whoever releases the lock
// releases a slot, as with sync.Mutex, whose Unlock may be called by
// another goroutine than its Lock.
type gate struct {
	mu      sync.Mutex
	writer  bool // the writer's slot is taken
	readers int  // read slots taken
	pending int  // writers waiting: newcomer readers wait behind them
	// changed is closed, and replaced, when a slot is freed or a waiting
	// writer gives up; nil while nobody waits.
	changed chan struct{}
}

// enter takes a slot, shared or not, waiting at most wait (forever when
// negative; wait 0 makes one try), until ctx ends (ctx.Err()) or until
// closed is closed (ErrClosed). It reports whether it took the slot, and
// first that no other slot was taken: the acquisition is the handle's
// first since it last held nothing. A free gate costs no timer.
func (g *gate) enter(ctx context.Context, closed <-chan struct{}, shared bool, wait time.Duration) (ok, first bool, err error) {
	var timeout <-chan time.Time
	var deadline time.Time
	if wait > 0 {
		deadline = time.Now().Add(wait)
	}
	queued := false
	defer func() {
		if queued {
			g.mu.Lock()
			g.pending--
			g.broadcastLocked() // a reader may have waited behind this writer
			g.mu.Unlock()
		}
	}()
	for {
		g.mu.Lock()
		var free bool
		if shared {
			free = !g.writer && g.pending == 0
		} else {
			// A writer enters when no slot is taken, a newcomer only
			// when no writer was queued before it.
			free = !g.writer && g.readers == 0 && (queued || g.pending == 0)
		}
		if free && queued {
			g.pending--
			queued = false
		}
		if free {
			first = !g.writer && g.readers == 0
			if shared {
				g.readers++
			} else {
				g.writer = true
			}
			g.mu.Unlock()
			return true, first, nil
		}
		if wait == 0 {
			g.mu.Unlock()
			return false, false, nil
		}
		if !shared && !queued {
			g.pending++
			queued = true
		}
		if g.changed == nil {
			g.changed = make(chan struct{})
		}
		changed := g.changed
		g.mu.Unlock()
		if timeout == nil && !deadline.IsZero() {
			t := time.NewTimer(time.Until(deadline))
			defer t.Stop()
			timeout = t.C
		}
		select {
		case <-changed:
		case <-timeout:
			return false, false, nil
		case <-ctx.Done():
			return false, false, ctx.Err()
		case <-closed:
			return false, false, ErrClosed
		}
	}
}

// leave frees a slot, shared or not, and wakes the waiters. A slot that
// is not taken is left as it is: an Unlock retried after a failure frees
// nothing twice.
func (g *gate) leave(shared bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	switch {
	case shared && g.readers > 0:
		g.readers--
	case !shared && g.writer:
		g.writer = false
	default:
		return
	}
	g.broadcastLocked()
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
		g.broadcastLocked()
	}
}

// broadcastLocked wakes every waiter. Called with mu held.
func (g *gate) broadcastLocked() {
	if g.changed != nil {
		close(g.changed)
		g.changed = nil
	}
}
