package relockgocron

import (
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/rlock"
	"github.com/relock-go/relock/test/testkit/lockkit"
)

// newClient returns a Client on a new miniredis (closed when the test
// ends), and the miniredis.
func newClient(t *testing.T, opts ...rlock.Option) (*rlock.Client, *miniredis.Miniredis) {
	t.Helper()
	mr := miniredis.RunT(t)
	rdb := redis.NewClient(&redis.Options{Addr: mr.Addr()})
	t.Cleanup(func() { _ = rdb.Close() })
	return lockkit.NewClient(t, rdb, opts...), mr
}

// signals returns a func that signals on the returned channel, never
// blocking (one signal pending at most).
func signals() (func(), chan struct{}) {
	ch := make(chan struct{}, 1)
	return func() {
		select {
		case ch <- struct{}{}:
		default:
		}
	}, ch
}

// within waits for ch, failing the test after a generous bound.
func within(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(10 * time.Second):
		t.Fatalf("waited 10s for %s", what)
	}
}
