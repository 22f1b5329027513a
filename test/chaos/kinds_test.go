package chaos

import (
	"context"
	"time"

	"github.com/relock-go/relock/rlock"
)

// handle is what the tests do with a lock, whatever its kind.
type handle interface {
	Lock(ctx context.Context) error
	Reenter(ctx context.Context) error
	LockWithLease(ctx context.Context, lease time.Duration) error
	Unlock(ctx context.Context) error
	Lost() <-chan struct{}
	HoldCount(ctx context.Context) (int, error)
	IsHeld(ctx context.Context) (bool, error)
	Owner() string
}

// kind makes owners of one kind of lock.
type kind struct {
	name string
	new  func(c *rlock.Client, name string) handle
}

// kinds are the three lock kinds, for tests that hold for each.
var kinds = []kind{
	{"Mutex", func(c *rlock.Client, name string) handle { return c.NewMutex(name) }},
	{"FairMutex", func(c *rlock.Client, name string) handle { return c.NewFairMutex(name) }},
	{"FencedMutex", func(c *rlock.Client, name string) handle { return fenced{c.NewFencedMutex(name)} }},
}

// fenced is a FencedMutex as a handle: its tokens are dropped.
type fenced struct{ *rlock.FencedMutex }

func (f fenced) Lock(ctx context.Context) error {
	_, err := f.FencedMutex.Lock(ctx)
	return err
}

func (f fenced) LockWithLease(ctx context.Context, lease time.Duration) error {
	_, err := f.FencedMutex.LockWithLease(ctx, lease)
	return err
}
