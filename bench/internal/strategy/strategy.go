// Package strategy puts the lock implementations the benchmarks compare
// behind one small interface: relock with pub/sub waiting, relock spinning
// with several backoffs, relock's fair mode, redsync and redislock.
package strategy

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"
)

// Locker is one owner's handle on one lock: each goroutine that must
// exclude the others has its own.
type Locker interface {
	// Lock blocks until the lock is held or ctx ends (then it returns an
	// error).
	Lock(ctx context.Context) error
	// Unlock releases the lock.
	Unlock(ctx context.Context) error
}

// Backend is a strategy bound to one go-redis client: what one process
// using the library would hold.
type Backend interface {
	// NewLocker returns a new owner of the lock called name.
	NewLocker(name string) Locker
	// Close releases the backend's resources (not the go-redis client).
	Close() error
}

// Strategy is one way of locking, with its settings.
type Strategy struct {
	// Name identifies the strategy in tables, plots and flags.
	Name string
	// Family groups strategies: "relock", "spin", "fair" or "peer".
	Family string
	// Open binds the strategy to rdb.
	Open func(rdb redis.UniversalClient) (Backend, error)
}

// Lease is the lease (TTL) of the peers' locks, which have no watchdog:
// far longer than any benchmark's critical section.
const Lease = 8 * time.Second

// All returns every strategy of the default comparison, relock pub/sub
// first.
func All() []Strategy {
	return []Strategy{
		Relock(),
		RelockSpin("spin-const-1ms", ConstantSpin(time.Millisecond)),
		RelockSpin("spin-const-10ms", ConstantSpin(10*time.Millisecond)),
		RelockSpin("spin-exp-1-64ms", ExponentialSpin(time.Millisecond, 64*time.Millisecond)),
		Fair(),
		RedsyncDefault(),
		RedsyncDelay(5 * time.Millisecond),
		RedislockLinear(time.Millisecond),
		RedislockLinear(10 * time.Millisecond),
	}
}

// ByName returns the strategies of All whose names are listed, in the
// order listed; unknown names are returned in missing.
func ByName(names []string) (found []Strategy, missing []string) {
	all := All()
	for _, n := range names {
		ok := false
		for _, s := range all {
			if s.Name == n {
				found = append(found, s)
				ok = true
				break
			}
		}
		if !ok {
			missing = append(missing, n)
		}
	}
	return found, missing
}

// Names lists the names of strategies.
func Names(ss []Strategy) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = s.Name
	}
	return out
}
