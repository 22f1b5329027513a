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
// tests. Each test starts its own Sentinel group: a failover changes the
// group for good.
func TestMain(m *testing.M) { os.Exit(testenv.Main(m.Run)) }

// within bounds every wait for something that should happen: generous, so
// that a loaded machine fails no test that is merely slow.
const within = 30 * time.Second

// startGroup starts a master with replicas replicas and three Sentinels,
// stopped when the test ends.
func startGroup(t *testing.T, replicas int) *redistest.Sentinel {
	t.Helper()
	begin := time.Now()
	s, err := redistest.StartSentinel(replicas, 3)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("close sentinel group: %v", err)
		}
	})
	t.Logf("master, %d replica(s) and 3 sentinels started in %v", replicas, time.Since(begin).Round(time.Millisecond))
	return s
}

// direct returns a plain go-redis client of the server at addr, closed when
// the test ends: the test's own view of one server, whatever its role.
func direct(t *testing.T, addr string) *redis.Client {
	t.Helper()
	rdb := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1})
	t.Cleanup(func() { _ = rdb.Close() })
	return rdb
}
