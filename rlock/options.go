package rlock

import (
	"errors"
	"fmt"
	"time"

	"github.com/relock-go/relock/internal/backoff"
)

// DefaultWatchdogTimeout is the lease of locks kept by the watchdog, as in
// Redisson (lockWatchdogTimeout).
const DefaultWatchdogTimeout = 30 * time.Second

// MinWatchdogTimeout is the shortest watchdog timeout WithWatchdogTimeout
// accepts. The watchdog renews a lease every third of it, and a hold counts
// as lost a margin before the lease ends (see Mutex.Lost): each renewal's
// round trip to Redis, a Go timer that fires late and a busy scheduler must
// all fit in the remaining two thirds, with room for one renewal to fail
// and the next to succeed. Below a few hundred milliseconds a garbage
// collection pause or a slow reply loses a lock that nobody released, so
// shorter timeouts are refused rather than left to fail in production.
const MinWatchdogTimeout = 300 * time.Millisecond

// DefaultFairWaitTimeout is the wait timeout of fair locks (see
// WithFairWaitTimeout): Redisson's default (fairLockWaitTimeout), so that
// Go and Java services sharing fair locks with their default settings keep
// one queue order. A dead relock waiter costs the queue no more than the
// lock's remaining lease, whatever the wait timeout: see FairMutex.
const DefaultFairWaitTimeout = 5 * time.Minute

// DefaultUnlockTimeout bounds the release request that Unlock still makes
// after its ctx has ended (see WithUnlockTimeout).
const DefaultUnlockTimeout = 3 * time.Second

// Option configures a Client.
type Option func(*options) error

type options struct {
	watchdogTimeout time.Duration
	spin            Backoff // nil: wait for pub/sub notifications
	subConns        int
	healthCheck     time.Duration
	fairWaitTimeout time.Duration
	replicas        int // WithReplicaAck; 0: do not wait
	replicaTimeout  time.Duration
	sharded         *bool // WithShardedPubSub; nil: decide by the server
	unlockTimeout   time.Duration
	observers       []Observer // WithObserver, WithLogger
	clientName      string     // WithClientName; "": no label
}

func defaultOptions() options {
	return options{watchdogTimeout: DefaultWatchdogTimeout, subConns: 1, healthCheck: 3 * time.Second, fairWaitTimeout: DefaultFairWaitTimeout, unlockTimeout: DefaultUnlockTimeout}
}

// WithWatchdogTimeout sets the lease of locks taken without an explicit
// lease; the watchdog renews them every d/3. Default 30s. A d below
// MinWatchdogTimeout makes New return an error wrapping ErrInvalidDuration.
// (A fixed lease, LockWithLease, may be shorter: nothing renews it.)
func WithWatchdogTimeout(d time.Duration) Option {
	return func(o *options) error {
		if err := checkNotNegative("WithWatchdogTimeout", d); err != nil {
			return err
		}
		if d < MinWatchdogTimeout {
			return invalidDuration("WithWatchdogTimeout", d, "is below MinWatchdogTimeout ("+MinWatchdogTimeout.String()+"): renewals every third of it could not keep the lock reliably")
		}
		o.watchdogTimeout = d
		return nil
	}
}

// Backoff returns how long a spinning waiter sleeps before its attempt
// number attempt (0 for the first retry): 0 retries at once.
type Backoff func(attempt int) time.Duration

// ConstantBackoff sleeps d between attempts; WithSpin refuses a negative d.
func ConstantBackoff(d time.Duration) Backoff {
	return func(int) time.Duration { return d }
}

// ExponentialBackoff sleeps min, doubling each attempt up to max, each sleep
// a random duration in its upper half so that spinning clients spread out.
// WithSpin refuses a negative min or max.
func ExponentialBackoff(min, max time.Duration) Backoff {
	return func(attempt int) time.Duration { return backoff.Exponential(min, max, attempt) }
}

// WithSpin makes waiters poll: retry after the sleeps that b returns (never
// longer than the lock's TTL or the remaining wait) instead of sleeping
// until Redis announces a release. It exists to compare the two strategies
// on one workload; pub/sub waiting is the default and the better choice.
// A Backoff whose first sleep, b(0), is negative is refused with an error
// wrapping ErrInvalidDuration: New calls it once to check.
func WithSpin(b Backoff) Option {
	return func(o *options) error {
		if b == nil {
			return errors.New("WithSpin: nil Backoff")
		}
		if err := checkNotNegative("WithSpin's first sleep", b(0)); err != nil {
			return err
		}
		o.spin = b
		return nil
	}
}

// WithSubscriptionConnections sets how many Redis connections carry the
// Client's pub/sub subscriptions, all lock names spread over them. Default 1.
func WithSubscriptionConnections(n int) Option {
	return func(o *options) error {
		if n < 1 {
			return fmt.Errorf("%d subscription connections: must be at least 1", n)
		}
		o.subConns = n
		return nil
	}
}

// WithHealthCheck sets how long a subscription connection may stay silent
// before it is pinged; one silent as long again after the ping is replaced
// and its waiters woken. Default 3s; d must be at least 1ms.
func WithHealthCheck(d time.Duration) Option {
	return func(o *options) error {
		if err := checkNotNegative("WithHealthCheck", d); err != nil {
			return err
		}
		if d < time.Millisecond {
			return invalidDuration("WithHealthCheck", d, "is below 1ms")
		}
		o.healthCheck = d
		return nil
	}
}

// WithFairWaitTimeout sets the wait timeout of fair locks (Redisson's
// fairLockWaitTimeout): each place in a fair lock's queue adds d to the
// deadline of the waiter who takes it, as Redisson computes deadlines, and
// every grant takes d off all of them. A waiter whose process died is
// evicted when its deadline passes at the head (up to d plus the lease it
// queued behind), or sooner when a relock script gives it its turn and it
// does not listen: a relock waiter at once, a Redisson waiter after a
// 3-second grace (see package queue). A live relock waiter at the head
// refreshes its deadline at least every d/3, so no deadline evicts it. Default
// DefaultFairWaitTimeout. When Redisson clients share fair locks with this
// Client, give both the same value (the defaults are the same). d must be
// at least 3ms.
func WithFairWaitTimeout(d time.Duration) Option {
	return func(o *options) error {
		if err := checkNotNegative("WithFairWaitTimeout", d); err != nil {
			return err
		}
		if d < 3*time.Millisecond {
			return invalidDuration("WithFairWaitTimeout", d, "is below 3ms (a heartbeat is a third of it)")
		}
		o.fairWaitTimeout = d
		return nil
	}
}

// WithReplicaAck makes every acquisition wait, with Redis's WAIT, until at
// least replicas replicas of the lock's master have acknowledged it, for at
// most timeout (0: wait as long as it takes; negative, or below 1ms:
// ErrInvalidDuration, since WAIT counts milliseconds). An acquisition that
// too few replicas acknowledged is undone and reported as ErrNotReplicated,
// so a failover to a replica cannot lose a lock that its owner believes
// held (unless the acknowledging replicas are not the one promoted); an
// Election's term waits for its token's acknowledgement as well. It
// costs a round trip and the replication delay on every acquisition. It
// needs a single-node or failover client (*redis.Client) or a
// *redis.ClusterClient.
func WithReplicaAck(replicas int, timeout time.Duration) Option {
	return func(o *options) error {
		if replicas < 1 {
			return fmt.Errorf("WithReplicaAck(%d, %v): want at least one replica", replicas, timeout)
		}
		if timeout != 0 {
			// WAIT counts in milliseconds, and 0 means forever.
			if err := checkDuration("WithReplicaAck timeout", timeout); err != nil {
				return err
			}
		}
		o.replicas, o.replicaTimeout = replicas, timeout
		return nil
	}
}

// WithShardedPubSub chooses between classic pub/sub (SUBSCRIBE, PUBLISH)
// and Redis 7's sharded pub/sub (SSUBSCRIBE, SPUBLISH) for unlock
// messages. By default a Client uses sharded pub/sub on a Redis Cluster
// whose servers have it (Redis 7 or later) and classic pub/sub otherwise,
// as Redisson's default (AUTO) does; every client of a lock, Go or Java,
// must use the same kind. Sharded pub/sub needs a *redis.ClusterClient: a
// release is then published on the lock's master alone, instead of being
// broadcast to every node, and each master with waiters gets its own
// subscription connection. On servers without it (before Redis 7.0),
// WithShardedPubSub(true) fails the first operation that publishes or
// waits, and every one after it, with an error wrapping
// errors.ErrUnsupported.
func WithShardedPubSub(on bool) Option {
	return func(o *options) error {
		o.sharded = &on
		return nil
	}
}

// WithUnlockTimeout bounds how long a release may go on once the ctx it
// was given has ended: Unlock (and a fair waiter leaving its queue, and a
// MultiLock letting go of its members) still sends its request when the
// caller's ctx is already done or ends while it runs, detached from that
// ctx, for at most d. A lock whose release cannot be made in that time
// is no longer renewed and expires within its lease. Default
// DefaultUnlockTimeout; d must be at least 1ms.
func WithUnlockTimeout(d time.Duration) Option {
	return func(o *options) error {
		if err := checkDuration("WithUnlockTimeout", d); err != nil {
			return err
		}
		o.unlockTimeout = d
		return nil
	}
}
