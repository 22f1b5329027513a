package strategy

import (
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/rlock"
)

// Fair is relock's fair mode (Client.NewFairMutex): the lock is granted in
// request order, each waiter woken alone on its own channel.
func Fair() Strategy {
	return Strategy{Name: "relock-fair", Family: "fair", Open: openFair}
}

func openFair(rdb redis.UniversalClient) (Backend, error) {
	b := &fairBackend{}
	c, err := rlock.New(rdb, rlock.WithObserver(rlock.ObserverFunc(func(e rlock.Event) {
		if e.Type != rlock.EventWaitStarted {
			return
		}
		if f := b.queued.Load(); f != nil {
			(*f)(e.Owner, e.Time)
		}
	})))
	if err != nil {
		return nil, err
	}
	b.c = c
	return b, nil
}

type fairBackend struct {
	c      *rlock.Client
	queued atomic.Pointer[func(owner string, at time.Time)]
}

func (b *fairBackend) NewLocker(name string) Locker { return b.c.NewFairMutex(name) }
func (b *fairBackend) Close() error                 { return b.c.Close() }

// OnQueued calls f each time an owner starts waiting in the line, just
// before the attempt that queues it.
func (b *fairBackend) OnQueued(f func(owner string, at time.Time)) { b.queued.Store(&f) }

// Queued is a Backend whose waiters queue in a line: it tells when each
// owner (Owned.Owner) joins it, so that grant order can be judged from
// the line, not from the Lock call, which may reach the server much later
// on a loaded machine.
type Queued interface {
	OnQueued(f func(owner string, at time.Time))
}

// Owned is a Locker that names its owner.
type Owned interface {
	Owner() string
}

// Compile-time check that a *rlock.FairMutex is a Locker.
var _ Locker = (*rlock.FairMutex)(nil)
