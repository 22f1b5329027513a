package chaos

import (
	"os"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/test/faultproxy"
	"github.com/relock-go/relock/test/redistest"
	"github.com/relock-go/relock/test/testenv"
)

// srv is this package's own redis-server: tests may restart it.
var srv *redistest.Server

func TestMain(m *testing.M) {
	code := testenv.Main(func() int { return redistest.Main(m, &srv) })
	removeHolder()
	os.Exit(code)
}

// within bounds every wait for an event that should come: generous, so a
// loaded machine never fails a test that is merely slow.
const within = 10 * time.Second

// cmdTimeout is the read, write and dial timeout of clients behind a
// proxy: a command lost in a fault fails after it, and go-redis retries it.
const cmdTimeout = time.Second

// fresh empties the server and checks, after the test's other cleanups,
// that no goroutine of the module outlives the test.
func fresh(t *testing.T) {
	t.Helper()
	testenv.CheckLeaks(t)
	srv.Reset(t)
}

// proxied returns a go-redis client that goes through p, with short
// timeouts and go-redis's default retries, closed when the test ends.
func proxied(t *testing.T, p *faultproxy.Proxy, maxRetries int) *redis.Client {
	t.Helper()
	rdb := redis.NewClient(&redis.Options{
		Addr:         p.Addr(),
		DialTimeout:  cmdTimeout,
		ReadTimeout:  cmdTimeout,
		WriteTimeout: cmdTimeout,
		MaxRetries:   maxRetries,
	})
	t.Cleanup(func() { _ = rdb.Close() })
	return rdb
}

// patient returns a go-redis client that goes through p with timeouts of
// `within` and no retries, closed when the test ends: for a link the test
// slows on purpose, whose round trips a loaded machine may stretch past
// cmdTimeout without any fault.
func patient(t *testing.T, p *faultproxy.Proxy) *redis.Client {
	t.Helper()
	rdb := redis.NewClient(&redis.Options{
		Addr:         p.Addr(),
		DialTimeout:  within,
		ReadTimeout:  within,
		WriteTimeout: within,
		MaxRetries:   -1,
	})
	t.Cleanup(func() { _ = rdb.Close() })
	return rdb
}

// direct returns a go-redis client of the server with no proxy between,
// closed when the test ends: the test's own view of Redis.
func direct(t *testing.T) *redis.Client {
	t.Helper()
	return srv.Client(t)
}

// lostWithin fails the test unless lost closes within d.
func lostWithin(t *testing.T, lost <-chan struct{}, d time.Duration, what string) {
	t.Helper()
	if lost == nil {
		t.Fatalf("%s: no Lost channel: the owner does not hold the lock", what)
	}
	select {
	case <-lost:
	case <-time.After(d):
		t.Fatalf("%s: Lost did not fire within %v", what, d)
	}
}
