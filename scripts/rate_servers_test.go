package scripts

import (
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/test/redistest"
	"github.com/relock-go/relock/test/testkit"
)

// rateServer is a server the rate limiter's scripts run on in a test,
// and the clock its callers stamp with: miniredis's, which the test
// moves, or a real redis-server's, which moves by itself.
type rateServer struct {
	rdb *redis.Client
	mr  *miniredis.Miniredis // nil on a real server
	at  time.Time            // miniredis's clock
}

// now is the clock the callers stamp with: the server's own.
func (s *rateServer) now() time.Time {
	if s.mr == nil {
		return time.Now()
	}
	return s.at
}

// advance moves the clock by d: miniredis's, with its TTLs; a real
// server's by sleeping.
func (s *rateServer) advance(d time.Duration) {
	if s.mr == nil {
		time.Sleep(d)
		return
	}
	s.at = s.at.Add(d)
	s.mr.SetTime(s.at)
	s.mr.FastForward(d)
}

// onMiniredis is a rateServer on a fresh miniredis, its clock at a fixed
// instant.
func onMiniredis(t *testing.T) *rateServer {
	t.Helper()
	mr, rdb := testkit.Miniredis(t)
	s := &rateServer{rdb: rdb, mr: mr, at: time.UnixMilli(1_760_000_000_000)}
	mr.SetTime(s.at)
	return s
}

// onRedis is a rateServer on a redis-server of its own.
func onRedis(t *testing.T) *rateServer {
	t.Helper()
	srv, err := redistest.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	return &rateServer{rdb: srv.Client(t)}
}

// onEach runs f on miniredis and on a real redis-server, as subtests.
func onEach(t *testing.T, f func(t *testing.T, s *rateServer)) {
	t.Run("miniredis", func(t *testing.T) { f(t, onMiniredis(t)) })
	t.Run("redis", func(t *testing.T) { f(t, onRedis(t)) })
}
