package rlock

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/internal/keys"
)

// Locks returns the names of the locks whose names match pattern (SCAN's
// glob syntax; empty is "*"), sorted, scanning every master of a Redis
// Cluster; keys that are not lock hashes are left out: a lock hash has
// owner fields ("<client id>:<sequence>", a writer's with ":write" after)
// valued positive hold counts, and may have a mode field. relock's hash of
// a fair lock's relock waiters, which looks like one, is left out too. It
// never sends KEYS: each page of SCAN (TYPE hash) is followed by a
// pipeline of HGETALL of its keys.
func (c *Client) Locks(ctx context.Context, pattern string) ([]string, error) {
	return c.scanHashes(ctx, "locks", pattern, func(name string, hash map[string]string) bool {
		return isLockHash(hash) && !strings.HasPrefix(name, fairWaitersPrefix)
	})
}

// scanHashes returns the names of the hashes whose names match pattern
// (empty is "*") and that keep keeps, sorted, scanning every master of a
// Redis Cluster: each page of SCAN (TYPE hash) is followed by a pipeline
// of HGETALL of its keys. op names the operation in errors.
func (c *Client) scanHashes(ctx context.Context, op, pattern string, keep func(name string, hash map[string]string) bool) ([]string, error) {
	if pattern == "" {
		pattern = "*"
	}
	if c.closed() {
		return nil, opError(op, "", ErrClosed)
	}
	var mu sync.Mutex
	var names []string
	scan := func(ctx context.Context, rdb redis.Cmdable) error {
		found, err := scanHashes(ctx, rdb, pattern, keep)
		mu.Lock()
		defer mu.Unlock()
		names = append(names, found...)
		return err
	}
	var err error
	if cluster, ok := c.rdb.(*redis.ClusterClient); ok {
		err = cluster.ForEachMaster(ctx, func(ctx context.Context, master *redis.Client) error {
			return scan(ctx, master)
		})
	} else {
		err = scan(ctx, c.rdb)
	}
	if err != nil {
		return nil, opError(op, "", fmt.Errorf("scanning for %q: %w", pattern, err))
	}
	slices.Sort(names)
	return slices.Compact(names), nil
}

// ForceUnlock deletes the lock called name whoever holds it, whatever its
// kind (as Inspect tells it, from one round trip of reads), and wakes its
// waiters as that kind's ForceUnlock does; it reports whether there was a
// lock. A key of that name that is not a lock is an error wrapping
// ErrWrongType, and is left alone. Meant for operators.
func (c *Client) ForceUnlock(ctx context.Context, name string) (bool, error) {
	const op = "force unlock"
	if err := c.usableName(name); err != nil {
		return false, opError(op, name, err)
	}
	pipe := c.rdb.Pipeline()
	kind, hash, err := look(ctx, pipe, name).result("lock", exec(ctx, pipe))
	if err != nil || len(hash) == 0 {
		return false, opError(op, name, err)
	}
	switch kind {
	case KindFairMutex, KindElection:
		return c.NewFairMutex(name).ForceUnlock(ctx)
	case KindFencedMutex:
		return c.NewFencedMutex(name).ForceUnlock(ctx)
	case KindRWMutex:
		return c.NewRWMutex(name).ForceUnlock(ctx)
	case KindFairRWMutex:
		return c.NewFairRWMutex(name).ForceUnlock(ctx)
	}
	return c.NewMutex(name).ForceUnlock(ctx)
}

// fairWaitersPrefix begins the name of every fair lock's relock waiters
// hash (keys.FairWaiters), whatever the lock's name.
var fairWaitersPrefix = strings.TrimSuffix(keys.FairWaiters(""), "{}")

// scanHashes returns the hashes whose names match pattern on one server
// and that keep keeps: SCAN's pages of hashes, each page's hashes read in
// one pipeline.
func scanHashes(ctx context.Context, rdb redis.Cmdable, pattern string, keep func(string, map[string]string) bool) ([]string, error) {
	var names []string
	var cursor uint64
	for {
		page, next, err := rdb.ScanType(ctx, cursor, pattern, 500, "hash").Result()
		if err != nil {
			return names, err
		}
		found, err := keptHashes(ctx, rdb, page, keep)
		names = append(names, found...)
		if err != nil {
			return names, err
		}
		if cursor = next; cursor == 0 {
			return names, nil
		}
	}
}

// keptHashes returns those of the hashes called names that keep keeps,
// reading them in one pipeline. A key that is no longer a hash is not.
func keptHashes(ctx context.Context, rdb redis.Cmdable, names []string, keep func(string, map[string]string) bool) ([]string, error) {
	if len(names) == 0 {
		return nil, nil
	}
	pipe := rdb.Pipeline()
	hashes := make([]*redis.MapStringStringCmd, len(names))
	for i, name := range names {
		hashes[i] = pipe.HGetAll(ctx, name)
	}
	_, _ = pipe.Exec(ctx) // each command's error is read below
	var kept []string
	for i, name := range names {
		hash, err := hashes[i].Result()
		switch {
		case err == nil:
			if keep(name, hash) {
				kept = append(kept, name)
			}
		case !isWrongType(err):
			return kept, err
		}
	}
	return kept, nil
}
