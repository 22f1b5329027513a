package rlock

import (
	"maps"
	"slices"
	"sync"
	"sync/atomic"
)

// waiter is one waiting acquisition in a Client's list.
type waiter struct {
	info              WaiterInfo // but its attempts and wakeups
	attempts, wakeups atomic.Int64
}

// waitList is the waiting acquisitions of a Client.
type waitList struct {
	mu sync.Mutex
	m  map[*waiter]struct{}
}

func (l *waitList) add(w *waiter) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.m == nil {
		l.m = make(map[*waiter]struct{})
	}
	l.m[w] = struct{}{}
}

func (l *waitList) remove(w *waiter) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.m, w)
}

func (l *waitList) list() []*waiter {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Collect(maps.Keys(l.m))
}
