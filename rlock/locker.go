package rlock

import "context"

// locker is the sync.Locker view of a lock handle.
type locker struct {
	lock   func(context.Context) error
	unlock func(context.Context) error
}

// Lock panics with the *Error of a failed Lock.
func (l locker) Lock() {
	if err := l.lock(context.Background()); err != nil {
		panic(err)
	}
}

// Unlock panics with the *Error of a failed Unlock.
func (l locker) Unlock() {
	if err := l.unlock(context.Background()); err != nil {
		panic(err)
	}
}
