package main

import (
	"context"
	"errors"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/internal/keys"
	"github.com/relock-go/relock/rlock"
	"github.com/relock-go/relock/scripts"
)

// runList prints one line per lock, semaphore, latch and rate limiter
// whose name matches the pattern args[0] (default "*"): its kind, number
// of holders, TTL, queue length and count (a limiter's available
// permits, "-" for a limiter per client), each inspected in turn. The
// keys an object keeps beside its name (a limiter's counts of permits, a
// read hold's lease) are not listed. A key gone, or
// replaced by one of another kind, between the listing and its inspection
// is left out.
func runList(ctx context.Context, s *session, args []string) error {
	pattern := "*"
	if len(args) > 0 {
		pattern = args[0]
	}
	rctx, cancel := s.request(ctx)
	names, err := s.locks.Locks(rctx, pattern)
	if err == nil {
		var more []string
		more, err = s.locks.RateLimiters(rctx, pattern)
		names = append(names, more...)
	}
	if err == nil {
		var counts []string
		var limiters map[string]string
		if counts, err = countNames(rctx, s.rdb, pattern); err == nil {
			limiters, err = limiterCounts(rctx, s.rdb, counts)
		}
		for _, name := range counts {
			if _, ok := limiters[name]; !ok {
				names = append(names, name)
			}
		}
	}
	cancel()
	if err != nil {
		return err
	}
	slices.Sort(names)
	views := make([]lockView, 0, len(names))
	for _, name := range slices.Compact(names) {
		v, err := s.view(ctx, name)
		switch {
		case errors.Is(err, rlock.ErrWrongType):
			continue
		case err != nil:
			return err
		case !v.exists():
			continue
		}
		views = append(views, v)
	}
	if s.o.json {
		return writeJSON(s.e.stdout, views)
	}
	rows := [][]string{{"NAME", "KIND", "HOLDERS", "TTL", "QUEUE", "COUNT"}}
	for _, v := range views {
		holders, ttl, queue, count := strconv.Itoa(len(v.Holders)), ttlText(v.TTLMillis, ""), strconv.Itoa(len(v.Queue)), "-"
		if v.counting() { // holders, a lease and a queue are a lock's
			holders, ttl, queue = "-", "-", "-"
			if v.Count != nil {
				count = strconv.FormatInt(*v.Count, 10)
			}
		}
		rows = append(rows, []string{v.Name, v.Kind, holders, ttl, queue, count})
	}
	writeTable(s.e.stdout, "", rows)
	return nil
}

// integer is the value of a semaphore's or a latch's count.
var integer = regexp.MustCompile(`^-?[0-9]+$`)

// tokenPrefix begins the name of every fenced lock's token counter, a
// string of an integer that is no semaphore.
var tokenPrefix = strings.TrimSuffix(keys.Token(""), "{}")

// countNames returns the names matching pattern of the strings that hold
// an integer, as a semaphore's and a latch's counts do (Redisson keeps
// both as a bare string), on every master of a Redis Cluster: each page
// of SCAN (TYPE string) is followed by a pipeline of GET of its keys.
// A fenced lock's token counter and the leases of a read-write lock's read
// holds are left out.
func countNames(ctx context.Context, rdb redis.UniversalClient, pattern string) ([]string, error) {
	var mu sync.Mutex
	var names []string
	scan := func(ctx context.Context, rdb redis.Cmdable) error {
		var cursor uint64
		for {
			page, next, err := rdb.ScanType(ctx, cursor, pattern, 500, "string").Result()
			if err != nil {
				return err
			}
			pipe := rdb.Pipeline()
			values := make([]*redis.StringCmd, len(page))
			for i, name := range page {
				values[i] = pipe.Get(ctx, name)
			}
			if len(page) > 0 {
				_, _ = pipe.Exec(ctx) // a key gone meanwhile is left out
			}
			mu.Lock()
			for i, name := range page {
				if integer.MatchString(values[i].Val()) && !strings.HasPrefix(name, tokenPrefix) && !keys.IsReadTimeout(name) {
					names = append(names, name)
				}
			}
			mu.Unlock()
			if cursor = next; cursor == 0 {
				return nil
			}
		}
	}
	var err error
	if cluster, ok := rdb.(*redis.ClusterClient); ok {
		err = cluster.ForEachMaster(ctx, func(ctx context.Context, master *redis.Client) error {
			return scan(ctx, master)
		})
	} else {
		err = scan(ctx, rdb)
	}
	return names, err
}

// limiterCounts returns, by name, those of the counts called names that
// are a rate limiter's count of available permits (keys.RateNames) beside
// its config, with the limiter's name, reading the configs in one
// pipeline. The count of a limiter whose config is gone is none: no client
// uses it any more, and an operator may want to delete it.
func limiterCounts(ctx context.Context, rdb redis.UniversalClient, names []string) (map[string]string, error) {
	pipe := rdb.Pipeline()
	configs := make(map[string]*redis.MapStringStringCmd)
	for _, name := range names {
		for _, limiter := range keys.RateNames(name) {
			if configs[limiter] == nil {
				configs[limiter] = pipe.HGetAll(ctx, limiter)
			}
		}
	}
	if len(configs) == 0 {
		return nil, nil
	}
	_, _ = pipe.Exec(ctx) // a key that is no hash is no limiter; other errors are read below
	of := make(map[string]string)
	for _, name := range names {
		for _, l := range keys.RateNames(name) {
			hash, err := configs[l].Result()
			if err != nil && !redis.HasErrorPrefix(err, "WRONGTYPE") {
				return nil, err
			}
			if _, ok := scripts.ParseRateConfig(hash); ok {
				of[name] = l
			}
		}
	}
	return of, nil
}
