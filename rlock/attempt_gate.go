package rlock

import (
	"context"

	"github.com/redis/go-redis/v9"
)

// attemptGate bounds how many acquisition attempts of a Client are sent
// at once, so that waiters retrying together (a subscription connection
// replaced, many locks released at once, a burst of new Lock calls) queue
// here, under their ctx, instead of in go-redis's connection pool, whose
// wait ends in "connection pool timeout". The rest of the pool stays free
// for releases, renewals and the pub/sub probes, which a storm of attempts
// must not starve. An attempt passes the gate with one channel send and
// leaves it with one receive: nothing on the uncontended path waits there.
type attemptGate chan struct{}

// newAttemptGate lets through as many attempts at once as three quarters
// of rdb's connection pool (per node on a Redis Cluster; go-redis's
// default pool is ten connections per CPU), at least one.
func newAttemptGate(rdb redis.UniversalClient) attemptGate {
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
	return make(attemptGate, max(1, size*3/4))
}

// pass waits until an attempt may be sent, or for ctx to end (then its
// error).
func (s attemptGate) pass(ctx context.Context) error {
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

// done tells the gate that an attempt that passed is done.
func (s attemptGate) done() { <-s }
