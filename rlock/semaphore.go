package rlock

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/scripts"
)

// Semaphore is a distributed counting semaphore, wire-compatible with
// Redisson's RSemaphore: the string key NAME holds the available permits,
// and releases are announced on redisson_sc:{NAME}, so Go and Java
// processes can share one. Permits belong to nobody: any process may
// release them, and a process that dies holding permits does not give them
// back (use a PermitExpirableSemaphore for that).
//
// Waiters sleep on the Client's shared subscription of the channel and
// retry when a release announces permits or, without a message, after the
// watchdog timeout (WithWatchdogTimeout), the bound the locks keep for
// keys without an expiry (Redisson's waiters wait for the message alone).
// See NewSemaphore for the order in which they are served. A Semaphore is
// safe for concurrent use.
type Semaphore struct {
	countHandle
	s *scripts.Semaphore
}

// NewSemaphore returns the semaphore called name. It sends nothing to
// Redis; the semaphore has no permits until TrySetPermits or AddPermits
// gives it some.
//
// Waiting policy: the waiters of one semaphore in one Client are served
// in arrival order: only the oldest attempts, so a waiter for n permits is
// never overtaken by a later waiter of the same Client for fewer, and a
// release message costs one attempt per Client. Between Clients (and
// Redisson clients), as in Redisson, whoever attempts first after a release
// takes the permits: a waiter for many permits can wait long while other
// processes keep taking few.
func (c *Client) NewSemaphore(name string) *Semaphore {
	s := scripts.NewSemaphore(name)
	return &Semaphore{countHandle: newCountHandle(c, name, s.Channel(), KindSemaphore), s: s}
}

// checkPermits rejects a permit count below 1.
func checkPermits(n int) error {
	if n < 1 {
		return fmt.Errorf("%w: %d permits: at least 1", ErrInvalidCount, n)
	}
	return nil
}

// ErrInvalidCount is the cause of an operation given a count it cannot
// use, before anything is sent to Redis: a semaphore's acquisition or
// release of fewer than one permit, permits set below zero
// (TrySetPermits), a latch's count below one (TrySetCount). AddPermits
// takes any count, a negative one removing permits. The error's text says
// which count and its least value. (Redisson throws for a negative
// acquisition or release, answers one of 0 at once, and takes any count
// to set.)
var ErrInvalidCount = errors.New("invalid count")

// TrySetPermits sets the semaphore's permits to n if it has no count yet,
// and reports whether it did (Redisson's trySetPermits).
func (s *Semaphore) TrySetPermits(ctx context.Context, n int) (bool, error) {
	if err := s.begin(ctx); err != nil {
		return false, opError("set permits", s.name, err)
	}
	if n < 0 {
		return false, opError("set permits", s.name, fmt.Errorf("%w: %d permits: at least 0", ErrInvalidCount, n))
	}
	ok, err := s.s.TrySet(ctx, s.c.rdb, n, s.c.publishCommand())
	return ok, opError("set permits", s.name, err)
}

// Delete deletes the semaphore's count, and reports whether it had one
// (Redisson's delete). It is how a count that an earlier run left is
// reset: TrySetPermits sets one again. Its waiters keep waiting, as on a
// semaphore that has no permits set. The semaphore does not know the
// permits acquired and not released: released after Delete, they add to
// the count set since.
func (s *Semaphore) Delete(ctx context.Context) (bool, error) {
	if err := s.usable(); err != nil {
		return false, opError("delete", s.name, err)
	}
	ok, err := s.s.Delete(ctx, s.c.rdb)
	return ok, opError("delete", s.name, err)
}

// AddPermits adds n permits (fewer when n is negative) to the semaphore,
// creating its count if need be, and wakes its waiters. A request resent
// after a lost reply is applied once.
func (s *Semaphore) AddPermits(ctx context.Context, n int) error {
	if err := s.begin(ctx); err != nil {
		return opError("add permits", s.name, err)
	}
	_, err := s.release(ctx, n)
	return opError("add permits", s.name, err)
}

// Acquire takes n permits, waiting as long as it takes, until ctx ends.
// On a semaphore that has no permits set (nobody called TrySetPermits or
// AddPermits), or for more permits than it will ever have, it waits until
// ctx ends, as Redisson's does: bound ctx, or use TryAcquire.
func (s *Semaphore) Acquire(ctx context.Context, n int) error {
	_, err := s.acquire(ctx, n, noDeadline)
	return err
}

// TryAcquire takes n permits if it can within wait, and reports whether it
// did: a wait of 0 makes one attempt, a negative one is an error wrapping
// ErrInvalidDuration. Its arguments come in Redisson's order, the permits
// then the wait (PermitExpirableSemaphore.TryAcquire's are the wait, then
// the lease). A false with a nil error means the wait elapsed, which is
// all it reports of a semaphore with no permits set or fewer than n in
// all.
func (s *Semaphore) TryAcquire(ctx context.Context, n int, wait time.Duration) (bool, error) {
	if err := checkWait(wait); err != nil {
		return false, opError("acquire", s.name, err)
	}
	return s.acquire(ctx, n, deadlineAfter(wait))
}

// acquire is TryAcquire by deadline, without its check of the wait.
func (s *Semaphore) acquire(ctx context.Context, n int, deadline time.Time) (bool, error) {
	if err := checkPermits(n); err != nil {
		return false, opError("acquire", s.name, err)
	}
	ok, err := s.countHandle.acquire(ctx, &semaphoreTurn{countTurn: s.turn(n), s: s.s}, deadline)
	return ok, opError("acquire", s.name, err)
}

// semaphoreTurn is the turn of an acquisition of a semaphore's permits.
type semaphoreTurn struct {
	countTurn
	s *scripts.Semaphore
}

func (t *semaphoreTurn) attempt(ctx context.Context) (outcome, error) {
	req, end := t.h.request()
	defer end()
	left, err := t.s.Acquire(context.WithoutCancel(ctx), t.c.sender, t.permits, req)
	return outcome{ok: left >= 0 && err == nil, ttl: t.c.opts.watchdogTimeout, count: t.permits}, err
}

// Release gives back n permits and wakes the semaphore's waiters. It is
// sent even when ctx has ended (then bounded by the unlock timeout), and
// a request resent after a lost reply is applied once: the Client's
// request records keep its outcome. Like Redisson's, it does not check
// that the permits were taken.
func (s *Semaphore) Release(ctx context.Context, n int) error {
	if err := checkPermits(n); err != nil {
		return opError("release", s.name, err)
	}
	if err := s.usable(); err != nil {
		return opError("release", s.name, err)
	}
	start := time.Now()
	_, err := s.release(ctx, n)
	s.observe(ctx, EventReleased, n, start, err)
	return opError("release", s.name, err)
}

// release adds n permits as one recorded request.
func (s *Semaphore) release(ctx context.Context, n int) (int64, error) {
	req, end := s.request()
	defer end()
	var ls scripts.Listeners
	count, err := persist(s.c, ctx, func(ctx context.Context) (n64 int64, err error) {
		n64, ls, err = s.s.Release(ctx, s.c.sender, n, s.c.publishCommand(), req, s.c.countDue(s.channel))
		return n64, err
	})
	if err == nil {
		s.released(ls)
	}
	return count, err
}

// AvailablePermits is the number of permits available now.
func (s *Semaphore) AvailablePermits(ctx context.Context) (int, error) {
	if err := s.usable(); err != nil {
		return 0, opError("available permits", s.name, err)
	}
	n, err := readCount(ctx, s.c.rdb, "available permits", s.name)
	return int(n), err
}

// readCount reads the count at key name for operation op: 0 when absent.
func readCount(ctx context.Context, rdb redis.Cmdable, op, name string) (int64, error) {
	v, err := rdb.Get(ctx, name).Result()
	if errors.Is(err, redis.Nil) {
		return 0, nil
	}
	if err != nil {
		return 0, opError(op, name, named(ctx, rdb, name, "count", err))
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, opError(op, name, wrongKind("string", "count"))
	}
	return n, nil
}

// Drain takes every available permit and returns how many it took
// (Redisson's drainPermits).
func (s *Semaphore) Drain(ctx context.Context) (int, error) {
	if err := s.usable(); err != nil {
		return 0, opError("drain", s.name, err)
	}
	req, end := s.request()
	defer end()
	n, err := s.s.Drain(ctx, s.c.rdb, req)
	return int(n), opError("drain", s.name, err)
}
