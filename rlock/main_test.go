package rlock

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/pubsub"
	"github.com/relock-go/relock/scripts"
	"github.com/relock-go/relock/test/redistest"
	"github.com/relock-go/relock/test/testenv"
	"github.com/relock-go/relock/test/testkit"
)

// srv is the real redis-server shared by this package's integration tests.
var srv *redistest.Server

// TestMain runs the tests on a real redis-server and fails the package if a
// goroutine of the module outlives them.
func TestMain(m *testing.M) {
	os.Exit(testenv.Main(func() int { return redistest.Main(m, &srv) }))
}

// newRedis returns a go-redis client of the test server, empty and with
// fresh command statistics.
func newRedis(t *testing.T) *redis.Client {
	t.Helper()
	srv.Reset(t)
	return srv.Client(t)
}

// newClient returns a Client on rdb, closed when the test ends: the
// lockkit.NewClient of this package's own tests, which cannot import
// lockkit (it imports rlock).
func newClient(t *testing.T, rdb redis.UniversalClient, opts ...Option) *Client {
	t.Helper()
	c, err := New(rdb, opts...)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// ctxT returns a context that ends with a generous bound on the test.
func ctxT(t *testing.T) context.Context { return testkit.Ctx(t, 20*time.Second) }

// eventually is testkit.Eventually.
func eventually(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	testkit.Eventually(t, d, what, cond)
}

// hubOf is the Hub of c, its pub/sub decided first if need be (on a
// Cluster, as a first operation would decide it).
func hubOf(c *Client) *pubsub.Hub {
	w, err := c.pubsub(context.Background())
	if err != nil {
		panic(fmt.Sprintf("the pub/sub of a Client: %v", err))
	}
	return w.hub
}

// publishCmd is the classic publish command, for queues made by tests.
func publishCmd() string { return scripts.Publish }
