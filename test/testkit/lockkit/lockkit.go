// Package lockkit holds the helpers that relock's tests share around an
// rlock Client. It is apart from package testkit because it imports rlock,
// which the tests of rlock's own dependencies (pubsub, queue, scripts) and
// of rlock itself cannot import. Like every package under test/, it exists
// for relock's own tests and makes no compatibility promise.
package lockkit

import (
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/rlock"
)

// NewClient returns an rlock Client on rdb with opts, closed when the test
// ends.
func NewClient(tb testing.TB, rdb redis.UniversalClient, opts ...rlock.Option) *rlock.Client {
	tb.Helper()
	c, err := rlock.New(rdb, opts...)
	if err != nil {
		tb.Fatalf("rlock.New: %v", err)
	}
	tb.Cleanup(func() { _ = c.Close() })
	return c
}
