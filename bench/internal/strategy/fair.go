package strategy

import (
	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/rlock"
)

// Fair is relock's fair mode (Client.NewFairMutex): the lock is granted in
// request order, each waiter woken alone on its own channel.
func Fair() Strategy {
	return Strategy{Name: "relock-fair", Family: "fair", Open: openFair}
}

func openFair(rdb *redis.Client) (Backend, error) {
	c, err := rlock.New(rdb)
	if err != nil {
		return nil, err
	}
	return fairBackend{c}, nil
}

type fairBackend struct{ c *rlock.Client }

func (b fairBackend) NewLocker(name string) Locker { return b.c.NewFairMutex(name) }
func (b fairBackend) Close() error                 { return b.c.Close() }

// Compile-time check that a *rlock.FairMutex is a Locker.
var _ Locker = (*rlock.FairMutex)(nil)
