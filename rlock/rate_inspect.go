package rlock

import (
	"context"
	"time"

	"github.com/relock-go/relock/scripts"
)

// Inspect reads the limiter's rate and the permits available now
// (InspectKind), changing nothing.
func (l *RateLimiter) Inspect(ctx context.Context) (LockInfo, error) {
	return l.c.InspectKind(ctx, l.name, KindRateLimiter)
}

// RateLimiters returns the names of the rate limiters whose names match
// pattern (SCAN's glob syntax; empty is "*"), sorted, scanning every
// master of a Redis Cluster: the hashes holding a limiter's config
// (Redisson's or relock's), with its rate, interval and type. Like Locks,
// it never sends KEYS.
func (c *Client) RateLimiters(ctx context.Context, pattern string) ([]string, error) {
	return c.scanHashes(ctx, "rate limiters", pattern, func(_ string, hash map[string]string) bool {
		_, ok := scripts.ParseRateConfig(hash)
		return ok
	})
}

// rateLimiter reports whether the first pipeline found a rate limiter's
// config at the name: a hash of its fields.
func (s *sight) rateLimiter() bool {
	_, ok := scripts.ParseRateConfig(s.hash.Val())
	return ok && s.typ.Val() == "hash"
}

// inspectCounting completes info, the Inspect of the counting object
// whose first pipeline s and cs read (its outcome err): a rate limiter's
// (asked, or found), else a semaphore's or a latch's (inspectCount).
func (c *Client) inspectCounting(ctx context.Context, info LockInfo, s *sight, cs countSight, asked Kind, err error) (LockInfo, error) {
	if asked == KindRateLimiter || (asked == "" && s.rateLimiter()) {
		info, err = c.inspectRate(ctx, info, s, err)
	} else {
		info, err = c.inspectCount(ctx, info, s, cs, asked, err)
	}
	if err != nil {
		return LockInfo{}, opError("inspect", info.Name, err)
	}
	return c.inspected(ctx, info, countChannels(info.Name, info.Kind))
}

// inspectRate completes info as a rate limiter's: its rate, from the
// hash s read, and its permits available now (this Client's, for a rate
// per client). A limiter with no rate has neither.
func (c *Client) inspectRate(ctx context.Context, info LockInfo, s *sight, err error) (LockInfo, error) {
	info.Kind = KindRateLimiter
	switch typ := s.typ.Val(); {
	case s.typ.Err() != nil:
		return info, s.typ.Err()
	case typ == "none":
		return info, err
	case typ != "hash" || !s.rateLimiter():
		return info, wrongKind(typ, "rate limiter's config")
	case err != nil:
		return info, err
	}
	cfg, _ := scripts.ParseRateConfig(s.hash.Val())
	info.Rate = &Rate{Limit: int(cfg.Rate), Interval: cfg.Interval, PerClient: cfg.PerClient, KeepAlive: cfg.KeepAlive}
	n, err := scripts.NewRateLimiter(info.Name, c.ids.Client()).Available(ctx, c.rdb, time.Now())
	info.Count = n
	return info, rateError(err)
}
