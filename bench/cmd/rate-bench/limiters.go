package main

import (
	"context"
	"time"

	"github.com/go-redis/redis_rate/v10"
	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/rlock"
)

// limiter is one of the compared rate limiters.
type limiter struct {
	name string
	// open sets up the limiter called name, of limit a second, on each
	// of rdbs, and returns the Allow of the i-th and a function that
	// closes what it opened.
	open func(ctx context.Context, rdbs []*redis.Client, name string, limit int) (allow func(i int) func(context.Context) (bool, error), closeAll func(), err error)
	// keys are the Redis keys of the limiter called name.
	keys func(name string) []string
}

var limiters = []limiter{
	{name: "relock", open: openRelock, keys: func(name string) []string {
		return []string{name, "{" + name + "}:value", "{" + name + "}:permits"}
	}},
	{name: "redis_rate", open: openRedisRate, keys: func(name string) []string { return []string{"rate:" + name} }},
}

// openRelock is an rlock.Client on each of rdbs, and the RateLimiter
// name of each, its rate set to limit a second.
func openRelock(ctx context.Context, rdbs []*redis.Client, name string, limit int) (func(int) func(context.Context) (bool, error), func(), error) {
	ls := make([]*rlock.RateLimiter, len(rdbs))
	var clients []*rlock.Client
	closeAll := func() {
		for _, c := range clients {
			c.Close()
		}
	}
	for i, rdb := range rdbs {
		c, err := rlock.New(rdb)
		if err != nil {
			closeAll()
			return nil, nil, err
		}
		clients = append(clients, c)
		ls[i] = c.NewRateLimiter(name)
	}
	if err := ls[0].SetRate(ctx, rlock.Rate{Limit: limit, Interval: time.Second}); err != nil {
		closeAll()
		return nil, nil, err
	}
	return func(i int) func(context.Context) (bool, error) { return ls[i].Allow }, closeAll, nil
}

// openRedisRate is a redis_rate.Limiter on each of rdbs, of limit a
// second (GCRA, its burst the limit) on the key name.
func openRedisRate(_ context.Context, rdbs []*redis.Client, name string, limit int) (func(int) func(context.Context) (bool, error), func(), error) {
	ls := make([]*redis_rate.Limiter, len(rdbs))
	for i, rdb := range rdbs {
		ls[i] = redis_rate.NewLimiter(rdb)
	}
	per := redis_rate.PerSecond(limit)
	return func(i int) func(context.Context) (bool, error) {
		return func(ctx context.Context) (bool, error) {
			res, err := ls[i].Allow(ctx, name, per)
			if err != nil {
				return false, err
			}
			return res.Allowed > 0, nil
		}
	}, func() {}, nil
}
