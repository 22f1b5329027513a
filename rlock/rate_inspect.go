package rlock

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/internal/keys"
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
	now := time.Now()
	n, err := scripts.NewRateLimiter(info.Name, c.ids.Client()).Available(ctx, c.rdb, now)
	info.Count = n
	if err == nil && cfg.PerClient {
		info.RateClients, err = c.rateClients(ctx, info.Name, now)
	}
	return info, rateError(err)
}

// RateClient is one client's share of a rate limiter whose rate is per
// client (LockInfo.RateClients).
type RateClient struct {
	// Client is the client's id: a relock Client's ID, a Redisson
	// client's id.
	Client string
	// Label is that Client's label (WithClientName); nil when it has
	// none, as a Redisson client.
	Label *ClientLabel
	// Available is its permits available now.
	Available int64
}

// rateClients returns the clients of the per-client limiter name whose
// keys are in Redis (keys.RateClient of its count or of its permits),
// sorted by id, each with its permits available at now and its label.
// They are found by SCAN of the keyspace of the server that holds the
// limiter's slot (never KEYS); each client's count is one round trip of
// the script that Available runs.
func (c *Client) rateClients(ctx context.Context, name string, now time.Time) ([]RateClient, error) {
	ids, err := c.rateClientIDs(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("finding the limiter's clients: %w", err)
	}
	labels, err := c.labels(ctx, ids)
	if err != nil {
		return nil, err
	}
	clients := make([]RateClient, len(ids))
	for i, id := range ids {
		n, err := scripts.NewRateLimiter(name, id).Available(ctx, c.rdb, now)
		if err != nil {
			return nil, err
		}
		clients[i] = RateClient{Client: id, Label: labels[id], Available: n}
	}
	return clients, nil
}

// rateClientIDs returns the ids, sorted, of the clients that have keys of
// the per-client limiter name, from SCAN of the server of its slot.
func (c *Client) rateClientIDs(ctx context.Context, name string) ([]string, error) {
	var rdb redis.Cmdable = c.rdb
	if cluster, ok := c.rdb.(*redis.ClusterClient); ok {
		master, err := cluster.MasterForKey(ctx, name)
		if err != nil {
			return nil, err
		}
		rdb = master
	}
	// A client's keys are keys.RateClient(k, id) = k + ":" + id, for k its
	// count or its permits; both begin with base.
	prefixes := []string{keys.RateValue(name) + ":", keys.RatePermits(name) + ":"}
	base := strings.TrimSuffix(keys.RateValue(name), "value")
	var ids []string
	var cursor uint64
	for {
		page, next, err := rdb.Scan(ctx, cursor, escapeGlob(base)+"*", 500).Result()
		if err != nil {
			return nil, err
		}
		for _, key := range page {
			for _, p := range prefixes {
				if id, ok := strings.CutPrefix(key, p); ok && id != "" {
					ids = append(ids, id)
				}
			}
		}
		if cursor = next; cursor == 0 {
			slices.Sort(ids)
			return slices.Compact(ids), nil
		}
	}
}

// escapeGlob escapes the characters of s that SCAN's MATCH reads as a
// pattern, so that it matches s itself.
func escapeGlob(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[]\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
