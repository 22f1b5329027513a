package rlock

import (
	"context"
	"time"
)

// RateResult is the outcome of one attempt for a rate limiter's permits,
// for callers that shed load (go-redis/redis_rate's Result; x/time/rate's
// Reservation.Delay).
type RateResult struct {
	// Allowed is the permits taken: all those asked, or 0.
	Allowed int
	// Remaining is the permits available after the attempt (this
	// Client's, for a rate PerClient), at the attempt's moment.
	Remaining int
	// RetryAfter is, when nothing was taken, how long until enough
	// permits come back for the attempt, unless others take them first;
	// -1 when they were taken (redis_rate's convention).
	RetryAfter time.Duration
}

// Try takes n permits if they are available now, as AllowN, and says
// what is left and, when it took nothing, when to retry. Errors as
// AllowN's.
func (l *RateLimiter) Try(ctx context.Context, n int) (RateResult, error) {
	if err := checkRatePermits(n); err != nil {
		return RateResult{}, opError("acquire", l.name, err)
	}
	deadline := deadlineAfter(0)
	t := l.turn(n, deadline)
	t.tell = true
	ok, err := l.countHandle.acquire(ctx, t, deadline)
	if err != nil {
		return RateResult{}, opError("acquire", l.name, err)
	}
	if ok {
		return RateResult{Allowed: n, Remaining: t.left, RetryAfter: -1}, nil
	}
	return RateResult{Remaining: t.left, RetryAfter: max(time.Until(t.due), 0)}, nil
}
