package strategy

import (
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/rlock"
)

// Relock is relock's default mode: waiters sleep on pub/sub until a release
// is announced.
func Relock() Strategy {
	return Strategy{Name: "relock", Family: "relock", Open: openRelock()}
}

// ConstantSpin is rlock.ConstantBackoff.
func ConstantSpin(d time.Duration) rlock.Backoff { return rlock.ConstantBackoff(d) }

// ExponentialSpin is rlock.ExponentialBackoff.
func ExponentialSpin(min, max time.Duration) rlock.Backoff {
	return rlock.ExponentialBackoff(min, max)
}

// RelockSpin is relock with polling waiters (rlock.WithSpin).
func RelockSpin(name string, b rlock.Backoff) Strategy {
	return Strategy{Name: name, Family: "spin", Open: openRelock(rlock.WithSpin(b))}
}

func openRelock(opts ...rlock.Option) func(*redis.Client) (Backend, error) {
	return func(rdb *redis.Client) (Backend, error) {
		c, err := rlock.New(rdb, opts...)
		if err != nil {
			return nil, err
		}
		return relockBackend{c}, nil
	}
}

type relockBackend struct{ c *rlock.Client }

func (b relockBackend) NewLocker(name string) Locker { return b.c.NewMutex(name) }
func (b relockBackend) Close() error                 { return b.c.Close() }

// Compile-time check that a *rlock.Mutex is a Locker.
var _ Locker = (*rlock.Mutex)(nil)

// RelockWatched is Relock, with default options, whose Clients count in
// replaced the pub/sub connections they replace (EventSubscriptionReplaced).
func RelockWatched(replaced *atomic.Int64) Strategy {
	count := rlock.ObserverFunc(func(e rlock.Event) {
		if e.Type == rlock.EventSubscriptionReplaced {
			replaced.Add(1)
		}
	})
	return Strategy{Name: "relock", Family: "relock", Open: openRelock(rlock.WithObserver(count))}
}
