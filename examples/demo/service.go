package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/rlock"
)

// service is one simulated process: it has its own Redis connection pool
// and its own rlock.Client (and so its own pub/sub subscription and
// watchdog), exactly as a separate process would.
type service struct {
	name  string
	rdb   *redis.Client
	locks *rlock.Client
	tl    *timeline
}

// newService connects a service to the Redis at addr. Locks taken with
// Lock get lease as their lease, renewed by the watchdog every lease/3.
func newService(name, addr string, lease time.Duration, tl *timeline) (*service, error) {
	rdb := redis.NewClient(&redis.Options{Addr: addr})
	locks, err := rlock.New(rdb, rlock.WithWatchdogTimeout(lease))
	if err != nil {
		rdb.Close()
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	tl.register(name, locks.ID())
	return &service{name: name, rdb: rdb, locks: locks, tl: tl}, nil
}

// Close stops the rlock.Client first (its watchdog and subscriptions use
// the Redis client), then the Redis client, which rlock never closes.
func (s *service) Close() {
	s.locks.Close()
	s.rdb.Close()
}

// say prints an event of this service on the timeline.
func (s *service) say(format string, args ...any) { s.tl.say(s.name, format, args...) }

// lock acquires m, narrating how: at once, or after waiting until the
// holder's release woke this service. It returns how long it waited.
func (s *service) lock(ctx context.Context, m *rlock.Mutex) (time.Duration, error) {
	// A single attempt first, only to tell the two cases apart: Lock alone
	// would do the same (try, then wait) in one call.
	ok, err := m.TryLock(ctx, 0, 0)
	if err != nil {
		return 0, err
	}
	if ok {
		s.say("acquires %s", m.Name())
		return 0, nil
	}
	s.say("waits: %s is held by %s", m.Name(), s.holder(ctx, m))
	waitStart := time.Now()
	if err := m.Lock(ctx); err != nil {
		return 0, err
	}
	waited := time.Since(waitStart)
	if who, ago, ok := s.tl.handoff(waitStart); ok {
		s.say("is woken and acquires it after %v of waiting, %v after %s unlocked",
			waited.Round(time.Millisecond), roundSmall(ago), who)
	} else {
		s.say("acquires it after %v of waiting", roundSmall(waited))
	}
	return waited, nil
}

// unlock releases one hold of m.
func (s *service) unlock(ctx context.Context, m *rlock.Mutex, format string, args ...any) error {
	s.tl.unlocking(s.name, format, args...)
	if err := m.Unlock(ctx); err != nil {
		return fmt.Errorf("%s: %w", s.name, err)
	}
	return nil
}

// lockInfo is what holder needs of a lock: *rlock.Mutex, *rlock.FairMutex
// and *rlock.FencedMutex all have it.
type lockInfo interface {
	Name() string
	TTL(ctx context.Context) (time.Duration, error)
}

// holder names the service holding m, read from Redis. The lock is a hash
// in Redisson's layout: one field, the holder's owner id, whose value is
// its hold count.
func (s *service) holder(ctx context.Context, m lockInfo) string {
	owners, err := s.rdb.HKeys(ctx, m.Name()).Result()
	switch {
	case err != nil:
		return "? (" + err.Error() + ")"
	case len(owners) == 0:
		return "nobody any more (just released)"
	}
	ttl, _ := m.TTL(ctx)
	return fmt.Sprintf("%s (TTL %v)", s.tl.nameOf(owners[0]), ttl)
}

// reportHoldCount prints how many times this service holds m.
func (s *service) reportHoldCount(ctx context.Context, m *rlock.Mutex, what string) error {
	n, err := m.HoldCount(ctx)
	if err != nil {
		return fmt.Errorf("%s: HoldCount: %w", s.name, err)
	}
	s.say("%s: HoldCount %d", what, n)
	return nil
}

// increment is the read-modify-write the lock protects: read the counter,
// work a while, write it back plus one. Two services doing it at once would
// both write the same value and lose an increment; the lock prevents that.
// It returns the counter's new value.
func (s *service) increment(ctx context.Context, m *rlock.Mutex, work time.Duration) (int, error) {
	n, err := s.rdb.Get(ctx, counterKey).Int()
	if err != nil && !errors.Is(err, redis.Nil) {
		return 0, err
	}
	if err := sleep(ctx, work); err != nil {
		return 0, err
	}
	// A lock can be lost (expired, force-unlocked) while its holder works:
	// a holder that knows it lost the lock must not write. (This narrows the
	// window but cannot close it: only a fencing token checked by the store
	// itself can.)
	select {
	case <-m.Lost():
		return 0, fmt.Errorf("%s: %w before writing the counter", s.name, rlock.ErrLost)
	default:
	}
	if err := s.rdb.Set(ctx, counterKey, n+1, 0).Err(); err != nil {
		return 0, err
	}
	return n + 1, nil
}

// sleep waits d, or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// roundSmall rounds a short duration for printing: to 10µs under 10ms.
func roundSmall(d time.Duration) time.Duration {
	if d < 10*time.Millisecond {
		return d.Round(10 * time.Microsecond)
	}
	return d.Round(time.Millisecond)
}
