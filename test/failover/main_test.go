package failover

import (
	"os"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/test/redistest"
	"github.com/relock-go/relock/test/testenv"
)

// TestMain fails the package if a goroutine of the module outlives its
// tests (go-redis's Sentinel watcher aside: testenv.SentinelWatch). Each
// test starts its own Sentinel group: a failover changes the group for
// good.
func TestMain(m *testing.M) { os.Exit(testenv.Main(m.Run, testenv.SentinelWatch...)) }

// within bounds every wait for something that should happen: generous, so
// that a loaded machine fails no test that is merely slow.
const within = 30 * time.Second

// startGroup starts a master with replicas replicas and three Sentinels,
// stopped when the test ends.
func startGroup(t *testing.T, replicas int) *redistest.Sentinel {
	t.Helper()
	return redistest.SentinelFor(t, replicas, 3)
}

// direct returns a plain go-redis client of the server at addr, closed when
// the test ends: the test's own view of one server, whatever its role.
func direct(t *testing.T, addr string) *redis.Client {
	t.Helper()
	rdb := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1})
	t.Cleanup(func() { _ = rdb.Close() })
	return rdb
}
