package rlock

import (
	"context"
	"fmt"
	"sync"
)

// Locker returns m as a sync.Locker, for code that takes one. Lock waits
// as Mutex.Lock does, with no deadline. Since sync.Locker cannot return an
// error, both methods panic on one (a closed Client, Redis unreachable,
// Unlock of a lock not held), as sync.Mutex does on an unlock of an
// unlocked mutex. Prefer the Mutex methods wherever errors can be handled.
func (m *Mutex) Locker() sync.Locker { return locker{m} }

// locker adapts a Mutex or a FairMutex.
type locker struct {
	m interface {
		Lock(context.Context) error
		Unlock(context.Context) error
		Name() string
	}
}

func (l locker) Lock() {
	if err := l.m.Lock(context.Background()); err != nil {
		panic(fmt.Sprintf("rlock: Locker.Lock %q: %v", l.m.Name(), err))
	}
}

func (l locker) Unlock() {
	if err := l.m.Unlock(context.Background()); err != nil {
		panic(fmt.Sprintf("rlock: Locker.Unlock %q: %v", l.m.Name(), err))
	}
}
