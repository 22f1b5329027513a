package rlock

import (
	"sync"
	"sync/atomic"
)

// setWatch follows the members one acquisition of a set took: it closes lost
// when more of them are lost than the set can spare, and tells the
// contexts of the set (MultiLock.Context) when the set ends.
type setWatch struct {
	lost chan struct{}
	quit chan struct{}
	wg   sync.WaitGroup

	mu    sync.Mutex
	ended error // why the set ended; nil while held
	ends  callbacks
}

// newSetWatch watches held, of which need must stay held.
func newSetWatch(held []Member, need int) *setWatch {
	w := &setWatch{lost: make(chan struct{}), quit: make(chan struct{})}
	spare := int64(len(held) - need)
	var losses atomic.Int64
	lose := func() {
		if losses.Add(1) > spare {
			w.end(ErrLost)
		}
	}
	for _, m := range held {
		ch := m.Lost()
		if isClosed(ch) {
			lose() // already gone
			continue
		}
		w.wg.Add(1)
		go func() {
			defer w.wg.Done()
			select {
			case <-ch:
				lose()
			case <-w.quit:
			}
		}()
	}
	return w
}

// end records that the set ended for cause, the first time only: ErrLost
// closes lost. It tells every context.
func (w *setWatch) end(cause error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.ended != nil {
		return
	}
	w.ended = cause
	if cause == ErrLost {
		close(w.lost)
	}
	for _, c := range w.ends.take() {
		c.f(cause)
	}
}

// onEnd arranges for f to be called with the cause when the set ends: at
// once if it has. The returned function cancels the arrangement.
func (w *setWatch) onEnd(f func(error)) (cancel func()) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.ended != nil {
		f(w.ended)
		return func() {}
	}
	id := w.ends.add(f)
	return func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		w.ends.remove(id)
	}
}

func (w *setWatch) isLost() bool { return isClosed(w.lost) }

// stop ends the watch after the set's last Unlock and waits for its
// goroutines.
func (w *setWatch) stop() {
	w.halt()
	w.end(ErrNotHeld)
}

// halt stops watching the members and waits for the goroutines.
func (w *setWatch) halt() {
	close(w.quit)
	w.wg.Wait()
}

// endWith ends a halted watch once every one of pending, members whose
// last release could not be confirmed, has ended: lost (its lease ran
// out) if any was lost, else released. With none pending it ends now.
func (w *setWatch) endWith(pending []Member) {
	if len(pending) == 0 {
		w.end(ErrNotHeld)
		return
	}
	var left atomic.Int64
	left.Store(int64(len(pending)))
	for _, m := range pending {
		m.base().whenEnds(func(cause error) {
			if cause != ErrNotHeld {
				w.end(ErrLost)
			} else if left.Add(-1) == 0 {
				w.end(ErrNotHeld)
			}
		})
	}
}

// isClosed reports whether ch is closed.
func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
