package testkit

import (
	"context"
	"testing"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"
)

// Miniredis starts an in-process miniredis and returns it with a go-redis
// client of it; both are closed when the test ends.
func Miniredis(tb testing.TB) (*miniredis.Miniredis, *redis.Client) {
	tb.Helper()
	mr := miniredis.RunT(tb)
	rdb := redis.NewClient(&redis.Options{Addr: mr.Addr()})
	tb.Cleanup(func() { _ = rdb.Close() })
	return mr, rdb
}

// Subscribers is how many connections the server behind rdb has
// subscribed to channel, or -1 when it cannot tell.
func Subscribers(ctx context.Context, rdb redis.UniversalClient, channel string) int64 {
	n, err := rdb.PubSubNumSub(ctx, channel).Result()
	if err != nil {
		return -1
	}
	return n[channel]
}
