// Package eventlog keeps the events an observer is given, for tests that
// wait for one of them instead of sleeping.
//
// Like every package under test/, it exists for relock's own tests and
// makes no compatibility promise: its API changes as the tests need.
package eventlog

import (
	"sync"
	"testing"
	"time"
)

// Log keeps every event added, in order. It is safe for concurrent use.
type Log[E any] struct {
	mu     sync.Mutex
	events []E
	added  chan struct{} // one token after an Add, never blocking
}

// New returns an empty Log.
func New[E any]() *Log[E] { return &Log[E]{added: make(chan struct{}, 1)} }

// Add keeps e and wakes an Await.
func (l *Log[E]) Add(e E) {
	l.mu.Lock()
	l.events = append(l.events, e)
	l.mu.Unlock()
	select {
	case l.added <- struct{}{}:
	default:
	}
}

// Matching returns the events so far for which match holds, in order.
// match runs without the Log's lock held, so it may use the Log.
func (l *Log[E]) Matching(match func(E) bool) []E {
	l.mu.Lock()
	events := l.events[:len(l.events):len(l.events)]
	l.mu.Unlock()
	var es []E
	for _, e := range events {
		if match(e) {
			es = append(es, e)
		}
	}
	return es
}

// Await returns the first event for which match holds, waiting up to ten
// seconds for it to come; then it fails t, saying that no event of what
// came.
func (l *Log[E]) Await(t testing.TB, what string, match func(E) bool) E {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		if es := l.Matching(match); len(es) > 0 {
			return es[0]
		}
		select {
		case <-l.added:
		case <-deadline:
			t.Fatalf("no event of %s came", what)
		}
	}
}
