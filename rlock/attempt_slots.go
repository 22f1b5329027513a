package rlock

import (
	"context"

	"github.com/redis/go-redis/v9"
)

// attemptSlots bounds how many acquisition attempts of a Client are sent
// at once, so that waiters retrying together (a subscription connection
// replaced, many locks released at once, a burst of new Lock calls) queue
// here, under their ctx, instead of in go-redis's connection pool, whose
// wait ends in "connection pool timeout". The rest of the pool stays free
// for releases, renewals and the pub/sub probes, which a storm of attempts
// must not starve. A slot is taken and given back with one channel send and
// receive: nothing on the uncontended path waits for it.
type attemptSlots chan struct{}

// newAttemptSlots sizes the slots to three quarters of rdb's connection
// pool (per node on a Redis Cluster; go-redis's default pool is ten
// connections per CPU), at least one.
func newAttemptSlots(rdb redis.UniversalClient) attemptSlots {
	size := 0
	switch c := rdb.(type) {
	case *redis.Client:
		size = c.Options().PoolSize
	case *redis.ClusterClient:
		size = c.Options().PoolSize
	case *redis.Ring:
		size = c.Options().PoolSize
	}
	if size <= 0 {
		size = 10
	}
	return make(attemptSlots, max(1, size*3/4))
}

// take waits for a slot, or for ctx to end (then its error).
func (s attemptSlots) take(ctx context.Context) error {
	select {
	case s <- struct{}{}:
		return nil
	default:
	}
	select {
	case s <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// give gives a slot back.
func (s attemptSlots) give() { <-s }
