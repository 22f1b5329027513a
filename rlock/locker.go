package rlock

import (
	"context"
	"fmt"
)

// locker is the sync.Locker view of a lock handle.
type locker struct {
	name   string
	lock   func(context.Context) error
	unlock func(context.Context) error
}

func (l locker) Lock() {
	if err := l.lock(context.Background()); err != nil {
		panic(fmt.Sprintf("rlock: Locker.Lock %q: %v", l.name, err))
	}
}

func (l locker) Unlock() {
	if err := l.unlock(context.Background()); err != nil {
		panic(fmt.Sprintf("rlock: Locker.Unlock %q: %v", l.name, err))
	}
}
