package rlock

import (
	"context"
	"fmt"
	"time"

	"github.com/relock-go/relock/scripts"
)

// CountDownLatch is a distributed count-down latch, wire-compatible with
// Redisson's RCountDownLatch: the string key NAME holds the count (absent
// at zero), and redisson_countdownlatch__channel__{NAME} hears "1" when a
// count is set and "0" when it reaches zero. Await returns once the count
// is zero; it sleeps on the Client's shared subscription of the channel
// and is woken by the "0" message, as Redisson's await is, or, without a
// message, reads the count again after the watchdog timeout
// (WithWatchdogTimeout). It is safe for concurrent use.
type CountDownLatch struct {
	countHandle
	l *scripts.CountDownLatch
}

// NewCountDownLatch returns the latch called name. It sends nothing to
// Redis. On Redis Cluster, a name with braces is refused (ErrInvalidName)
// when Redisson's channel for it lies in another hash slot than the name.
func (c *Client) NewCountDownLatch(name string) *CountDownLatch {
	l := scripts.NewCountDownLatch(name)
	return &CountDownLatch{countHandle: newCountHandle(c, name, l.Channel(), KindCountDownLatch), l: l}
}

// TrySetCount sets the count to n (at least 1) if the latch has none, and
// reports whether it did.
func (l *CountDownLatch) TrySetCount(ctx context.Context, n int64) (bool, error) {
	if n < 1 {
		return false, opError("set count", l.name, fmt.Errorf("%w: count %d: at least 1", ErrInvalidCount, n))
	}
	if err := l.begin(ctx); err != nil {
		return false, opError("set count", l.name, err)
	}
	ok, err := l.l.TrySet(ctx, l.c.rdb, n, l.c.publishCommand())
	return ok, opError("set count", l.name, err)
}

// CountDown counts the latch down by one; reaching zero deletes the count
// and wakes every waiter. It is sent even when ctx has ended (bounded by
// the unlock timeout), and a request resent after a lost reply is applied
// once: the Client's request records keep its outcome. Counting down a
// latch at zero does nothing.
func (l *CountDownLatch) CountDown(ctx context.Context) error {
	if err := l.usable(); err != nil {
		return opError("count down", l.name, err)
	}
	start := time.Now()
	req, end := l.request()
	defer end()
	left, err := persist(l.c, ctx, func(ctx context.Context) (int64, error) {
		return l.l.CountDown(ctx, l.c.rdb, l.c.publishCommand(), req)
	})
	l.observe(ctx, EventReleased, int(max(left, 0)), start, err)
	return opError("count down", l.name, err)
}

// Count is the latch's count now: 0 when it has none.
func (l *CountDownLatch) Count(ctx context.Context) (int64, error) {
	if err := l.usable(); err != nil {
		return 0, opError("count", l.name, err)
	}
	return readCount(ctx, l.c.rdb, "count", l.name)
}

// Await waits until the count is zero, or ctx ends (ctx.Err()).
func (l *CountDownLatch) Await(ctx context.Context) error {
	_, err := l.await(ctx, noDeadline)
	return err
}

// AwaitTimeout waits at most wait until the count is zero, and reports
// whether it is: a wait of 0 reads the count once, a negative one is an
// error wrapping ErrInvalidDuration.
func (l *CountDownLatch) AwaitTimeout(ctx context.Context, wait time.Duration) (bool, error) {
	if err := checkWait(wait); err != nil {
		return false, opError("await", l.name, err)
	}
	return l.await(ctx, deadlineAfter(wait))
}

// await is AwaitTimeout by deadline, without its check of the wait.
func (l *CountDownLatch) await(ctx context.Context, deadline time.Time) (bool, error) {
	ok, err := l.countHandle.acquire(ctx, &latchTurn{countTurn: l.turn(0), l: l}, deadline)
	return ok, opError("await", l.name, err)
}

// latchTurn is the turn of a wait for a latch's zero: its attempt reads
// the count.
type latchTurn struct {
	countTurn
	l *CountDownLatch
}

func (t *latchTurn) attempt(ctx context.Context) (outcome, error) {
	n, err := t.l.Count(context.WithoutCancel(ctx))
	return outcome{ok: n <= 0 && err == nil, ttl: t.c.opts.watchdogTimeout}, err
}

// Delete deletes the latch, waking its waiters, and reports whether it
// had a count.
func (l *CountDownLatch) Delete(ctx context.Context) (bool, error) {
	if err := l.begin(ctx); err != nil {
		return false, opError("delete", l.name, err)
	}
	ok, err := l.l.Delete(ctx, l.c.rdb, l.c.publishCommand())
	return ok, opError("delete", l.name, err)
}
