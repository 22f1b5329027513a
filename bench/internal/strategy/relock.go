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

func openRelock(opts ...rlock.Option) func(redis.UniversalClient) (Backend, error) {
	return func(rdb redis.UniversalClient) (Backend, error) {
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

// Waiting counts the Client's waiting acquisitions and the attempts each
// has made so far, up to most (Client.Activity).
func (b relockBackend) Waiting(most int) (waiters, attempts int) {
	for _, w := range b.c.Activity().Waiters {
		waiters++
		attempts += min(w.Attempts, most)
	}
	return waiters, attempts
}

// Watched is a Backend that tells how far its waiting acquisitions are.
type Watched interface {
	// Waiting counts the waiting acquisitions and the attempts each has
	// made so far, each counted up to most.
	Waiting(most int) (waiters, attempts int)
}

// Compile-time check that a *rlock.Mutex is a Locker.
var _ Locker = (*rlock.Mutex)(nil)

// Tally counts what a RelockCounted strategy's Clients did, from their
// events: subscription connections replaced, wake-ups of waiters by
// releases (EventWoken), acquisitions that waited, and the attempts (acquire
// scripts run) of the acquisitions that ended.
type Tally struct {
	Replaced, Woken, Waited, Attempts atomic.Int64
	// Lost counts holds lost (EventLost), RenewalsFailed renewals that got
	// no answer; FirstLost is the first loss's error.
	Lost, Renewed, RenewalsFailed atomic.Int64
	FirstLost                     atomic.Pointer[error]
	// FirstReplaced is why the first subscription connection was replaced,
	// FirstRenewalFailure why the first renewal failed.
	FirstReplaced, FirstRenewalFailure atomic.Pointer[error]
}

// RelockCounted is Relock, with default options but opts, whose Clients
// count their events in t.
func RelockCounted(t *Tally, opts ...rlock.Option) Strategy {
	count := rlock.ObserverFunc(func(e rlock.Event) {
		switch e.Type {
		case rlock.EventSubscriptionReplaced:
			t.Replaced.Add(1)
			t.FirstReplaced.CompareAndSwap(nil, &e.Err)
		case rlock.EventWoken:
			t.Woken.Add(1)
		case rlock.EventWaitStarted:
			t.Waited.Add(1)
		case rlock.EventLost:
			t.Lost.Add(1)
			t.FirstLost.CompareAndSwap(nil, &e.Err)
		case rlock.EventRenewed:
			t.Renewed.Add(int64(e.Count))
		case rlock.EventRenewalFailed:
			t.RenewalsFailed.Add(1)
			t.FirstRenewalFailure.CompareAndSwap(nil, &e.Err)
		case rlock.EventAcquired, rlock.EventNotAcquired:
			t.Attempts.Add(int64(e.Attempts))
		}
	})
	return Strategy{Name: "relock", Family: "relock", Open: openRelock(append(opts, rlock.WithObserver(count))...)}
}
