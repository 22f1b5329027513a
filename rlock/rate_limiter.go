package rlock

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/relock-go/relock/scripts"
)

// RateLimiter is a distributed rate limiter, wire-compatible with
// Redisson's RRateLimiter: at most Limit permits are taken in any window
// of one Interval, by every Client and Redisson client of the limiter
// together (or by each, for a rate PerClient); a permit comes back one
// Interval after it was taken. So a Go Allow and a Java tryAcquire on one
// name draw from one budget.
//
// Waiting: a waiter sleeps exactly as long as the acquisition script says
// it takes for enough permits to come back, then attempts again: no retry
// at a fixed period; relock's SetRate, Release and Delete wake the
// waiters of every Client at once (Redisson's changes are learnt at the
// next attempt). The waiters of one limiter in one Client queue in
// arrival order and only the oldest attempts, so a thousand waiters send
// one attempt at a time (and are granted at most a permit per round trip).
// Allow's attempts are not queued, but while waiters of its Client wait,
// an Allow takes its permits only beside all those they wait for. Between
// Clients, and Redisson clients, whoever attempts first after permits
// come back takes them: Redisson's waiters retry at their timer's next
// tick (tens of milliseconds later), so a Client's waiters come first.
//
// The clock: permits are stamped with the caller's clock as it reads, as
// Redisson's are, and a permit stamped t comes back when a caller's clock
// reads more than t + Interval; Redis's clock plays no part. So Go and
// Java hosts whose clocks agree hold the limit together. A host whose
// clock runs ahead by s sees the others' permits come back s early and
// takes them first, so a window can hold Limit plus what the others took
// in s: keep the hosts' clocks synchronised. docs/rate-limiter.md has the
// details and the figures.
//
// A RateLimiter is safe for concurrent use.
type RateLimiter struct {
	countHandle
	s *scripts.RateLimiter
	// line is the key of the limiter's line among the Client's
	// countLines: no channel of theirs begins with "rate:".
	line string
	now  func() time.Time // the clock permits are stamped with
}

// Rate is a rate limiter's rate: at most Limit permits in any window of
// one Interval.
type Rate struct {
	// Limit is the permits per Interval, 1 to 4294967295 (to the
	// largest int on 32-bit platforms): what one acquisition may take at
	// most.
	Limit int
	// Interval is the window's length, at least a millisecond; Redis
	// keeps it in whole milliseconds, rounded up.
	Interval time.Duration
	// PerClient gives each Client (each Redisson client) a Limit of its
	// own, Redisson's RateType.PER_CLIENT; false shares one Limit among
	// all, RateType.OVERALL.
	PerClient bool
	// KeepAlive, when not 0, deletes the limiter once it has gone that
	// long without an acquisition or a Release: at least Interval
	// (Redisson's keepAliveTime).
	KeepAlive time.Duration
}

// ErrNoRate is the cause of an operation on a RateLimiter whose rate was
// never set (or that was deleted, or whose KeepAlive ran out): set it with
// TrySetRate or SetRate first. Nothing was changed.
var ErrNoRate = errors.New("rate limiter has no rate set")

// NewRateLimiter returns the rate limiter called name. It sends nothing to
// Redis; it grants nothing until TrySetRate or SetRate gives it a rate.
func (c *Client) NewRateLimiter(name string) *RateLimiter {
	return &RateLimiter{
		countHandle: countHandle{c: c, name: name, channel: scripts.RateChannel(name), kind: KindRateLimiter, nameErr: checkName(name)},
		s:           scripts.NewRateLimiter(name, c.ids.Client()),
		line:        "rate:" + name,
		now:         time.Now,
	}
}

// check returns why r cannot be set, if it cannot: ErrInvalidCount for
// its Limit, ErrInvalidDuration for its Interval or KeepAlive.
func (r Rate) check() error {
	switch {
	case r.Limit < 1 || int64(r.Limit) > scripts.MaxRate:
		return fmt.Errorf("%w: limit %d: 1 to %d", ErrInvalidCount, r.Limit, int64(scripts.MaxRate))
	case r.KeepAlive < 0:
		return invalidDuration("keep-alive", r.KeepAlive, "is negative")
	case r.KeepAlive > 0 && r.KeepAlive < r.Interval:
		return invalidDuration("keep-alive", r.KeepAlive, fmt.Sprintf("is shorter than the interval %v", r.Interval))
	}
	return checkDuration("interval", r.Interval)
}

func (r Rate) config() scripts.RateConfig {
	return scripts.RateConfig{Rate: int64(r.Limit), Interval: r.Interval, PerClient: r.PerClient, KeepAlive: r.KeepAlive}
}

// TrySetRate sets the rate to r if the limiter has none, and reports
// whether it did (Redisson's trySetRate). The permits taken within the
// last interval stay taken (a config lost alone is set again without
// forgetting them). A request resent after a lost reply is applied once.
func (l *RateLimiter) TrySetRate(ctx context.Context, r Rate) (bool, error) {
	return l.set(ctx, "set rate", r, true)
}

// SetRate sets the rate to r, replacing any (Redisson's setRate), and
// resets the limiter: every permit is available again, those taken
// within the last interval forgotten; waiters in every Client attempt at
// once. For a rate PerClient, it resets
// this Client's permits; other clients keep theirs, and the scripts
// recount them against the new rate at their next acquisition. A
// KeepAlive of 0 removes an earlier one's expiry. A request resent after
// a lost reply is applied once.
func (l *RateLimiter) SetRate(ctx context.Context, r Rate) error {
	_, err := l.set(ctx, "set rate", r, false)
	return err
}

func (l *RateLimiter) set(ctx context.Context, op string, r Rate, only bool) (bool, error) {
	if err := r.check(); err != nil {
		return false, opError(op, l.name, err)
	}
	if err := l.begin(ctx); err != nil {
		return false, opError(op, l.name, err)
	}
	req, end := l.request()
	defer end()
	ok, err := l.s.Set(ctx, l.c.rdb, r.config(), only, req, l.c.publishCommand())
	return ok, opError(op, l.name, err)
}

// Rate reads the limiter's rate (Redisson's getConfig), or ErrNoRate; on
// a 32-bit platform, a rate above the largest int is ErrInvalidCount.
func (l *RateLimiter) Rate(ctx context.Context) (Rate, error) {
	if err := l.usable(); err != nil {
		return Rate{}, opError("rate", l.name, err)
	}
	c, err := l.s.Config(ctx, l.c.rdb)
	if err != nil {
		return Rate{}, opError("rate", l.name, named(ctx, l.c.rdb, l.name, "rate limiter's config", rateError(err)))
	}
	if c.Rate > math.MaxInt { // a 32-bit platform
		return Rate{}, opError("rate", l.name, fmt.Errorf("%w: the rate %d is more than an int holds here", ErrInvalidCount, c.Rate))
	}
	return Rate{Limit: int(c.Rate), Interval: c.Interval, PerClient: c.PerClient, KeepAlive: c.KeepAlive}, nil
}

// Allow takes one permit if one is available now, and reports whether it
// did (Redisson's tryAcquire): AllowN(ctx, 1).
func (l *RateLimiter) Allow(ctx context.Context) (bool, error) { return l.AllowN(ctx, 1) }

// AllowN takes n permits if they are available now, and reports whether
// it did (Redisson's tryAcquire(n)): one attempt, never a wait; the
// attempts of concurrent calls go to Redis together. While goroutines of
// this Client wait for the limiter (Wait, TryWait), it takes its permits
// only beside all those they wait for: they were first. n must be 1 to
// the rate's Limit (else ErrInvalidCount); a limiter with no rate is
// ErrNoRate.
func (l *RateLimiter) AllowN(ctx context.Context, n int) (bool, error) {
	return l.acquire(ctx, n, deadlineAfter(0))
}

// Wait takes one permit, waiting until one is available or ctx ends:
// WaitN(ctx, 1).
func (l *RateLimiter) Wait(ctx context.Context) error { return l.WaitN(ctx, 1) }

// WaitN takes n permits, waiting until they are available (Redisson's
// acquire(n)), or until ctx ends (ctx.Err()). When the permits will come
// back only after ctx's deadline, it returns at once an error wrapping
// context.DeadlineExceeded, and lets the next waiter go. Errors as
// AllowN's.
func (l *RateLimiter) WaitN(ctx context.Context, n int) error {
	_, err := l.acquire(ctx, n, noDeadline)
	return err
}

// TryWait takes n permits if it can within wait, and reports whether it
// did (Redisson's tryAcquire(n, timeout)): a wait of 0 is AllowN, a
// negative one an error wrapping ErrInvalidDuration. When the permits
// will come back only after the wait ends, it reports false at once,
// without waiting it out; after ctx's deadline, as WaitN. Errors as
// AllowN's.
func (l *RateLimiter) TryWait(ctx context.Context, n int, wait time.Duration) (bool, error) {
	if err := checkWait(wait); err != nil {
		return false, opError("acquire", l.name, err)
	}
	return l.acquire(ctx, n, deadlineAfter(wait))
}

// acquire takes n permits by deadline (noDeadline: none; one that has
// passed: a single attempt).
func (l *RateLimiter) acquire(ctx context.Context, n int, deadline time.Time) (bool, error) {
	if err := checkRatePermits(n); err != nil {
		return false, opError("acquire", l.name, err)
	}
	ok, err := l.countHandle.acquire(ctx, l.turn(n, deadline), deadline)
	return ok, opError("acquire", l.name, err)
}

// turn is a new turn of an acquisition of n permits by deadline.
func (l *RateLimiter) turn(n int, deadline time.Time) *rateTurn {
	return &rateTurn{listening: listening{c: l.c, channel: l.channel}, l: l, n: n, deadline: deadline}
}

// Available is the number of permits available now (Redisson's
// availablePermits): for a rate PerClient, this Client's. It changes
// nothing.
func (l *RateLimiter) Available(ctx context.Context) (int, error) {
	if err := l.usable(); err != nil {
		return 0, opError("available permits", l.name, err)
	}
	n, err := l.s.Available(ctx, l.c.rdb, l.now())
	return int(n), opError("available permits", l.name, rateError(err))
}

// Release gives back n permits taken within the last interval, which
// count as never taken: they are available again at once, and no window
// holds more than the Limit for it. The permits taken last are the ones
// given back (permits have no owner), and no more than were taken within
// the interval. Redisson's release(n) differs: it makes n available but
// leaves them counted as taken, so that they would come back a second
// time; relock's scripts count them back out (docs/rate-limiter.md). It
// is sent even when ctx has ended (then bounded by the unlock timeout),
// and a request resent after a lost reply is applied once. n must be at
// least 1 (ErrInvalidCount).
func (l *RateLimiter) Release(ctx context.Context, n int) error {
	if err := checkRatePermits(n); err != nil {
		return opError("release", l.name, err)
	}
	if err := l.usable(); err != nil {
		return opError("release", l.name, err)
	}
	start := time.Now()
	req, end := l.request()
	defer end()
	_, err := persist(l.c, ctx, func(ctx context.Context) (int64, error) {
		return l.s.Release(ctx, l.c.rdb, int64(n), l.now(), req, l.c.publishCommand())
	})
	err = rateError(err)
	l.observe(ctx, EventReleased, n, start, err)
	return opError("release", l.name, err)
}

// Delete deletes the limiter: its rate, the permits taken overall and
// this Client's own (for a rate PerClient; other clients' own expire by
// themselves, docs/rate-limiter.md), and reports whether it had a rate.
// Its waiters in every Client get ErrNoRate at once.
func (l *RateLimiter) Delete(ctx context.Context) (bool, error) {
	if err := l.usable(); err != nil {
		return false, opError("delete", l.name, err)
	}
	ok, err := l.s.Delete(ctx, l.c.rdb, l.c.publishCommand())
	return ok, opError("delete", l.name, err)
}

// checkRatePermits refuses a count of permits that no rate allows: below
// 1, or more than a member of the set can hold (the rate's own limit is
// the script's to check).
func checkRatePermits(n int) error {
	if n < 1 || int64(n) > scripts.MaxRate {
		return fmt.Errorf("%w: %d permits: 1 to the rate's limit", ErrInvalidCount, n)
	}
	return nil
}

// rateError is the cause the scripts' outcome err stands for:
// ErrNoRate, or ErrInvalidCount for more permits than the rate.
func rateError(err error) error {
	switch {
	case errors.Is(err, scripts.ErrNoRate):
		return ErrNoRate
	case errors.Is(err, scripts.ErrOverRate):
		return fmt.Errorf("%w: %w", ErrInvalidCount, err)
	}
	return err
}
