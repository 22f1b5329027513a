package rlock

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/internal/keys"
	"github.com/relock-go/relock/test/redistest"
)

// extraServer starts another redis-server for the test, stopped when it
// ends.
func extraServer(t *testing.T) *redistest.Server {
	t.Helper()
	s, err := redistest.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// stoppedServer returns the address of a redis-server that was started
// and stopped: nothing listens there.
func stoppedServer(t *testing.T) string {
	t.Helper()
	s, err := redistest.Start()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return s.Addr
}

// quickRedis returns a go-redis client of addr that fails fast when the
// server is down: no retries, short timeouts. It is closed when the test
// ends.
func quickRedis(t *testing.T, addr string) *redis.Client {
	t.Helper()
	rdb := redis.NewClient(&redis.Options{
		Addr:          addr,
		MaxRetries:    -1,
		DialerRetries: 1,
		DialTimeout:   time.Second,
		ReadTimeout:   time.Second,
		WriteTimeout:  time.Second,
	})
	t.Cleanup(func() { _ = rdb.Close() })
	return rdb
}

// holders returns the owners of the lock name in rdb and their hold counts.
func holders(t *testing.T, rdb redis.UniversalClient, name string) map[string]string {
	t.Helper()
	h, err := rdb.HGetAll(context.Background(), name).Result()
	if err != nil {
		t.Fatalf("HGETALL %s: %v", name, err)
	}
	return h
}

// wantHolders fails the test unless the lock name in rdb is held exactly by
// owners (none: the key is absent).
func wantHolders(t *testing.T, rdb redis.UniversalClient, name string, owners ...string) {
	t.Helper()
	h := holders(t, rdb, name)
	if len(h) != len(owners) {
		t.Fatalf("lock %q held by %v, want %v", name, h, owners)
	}
	for _, o := range owners {
		if _, ok := h[o]; !ok {
			t.Fatalf("lock %q held by %v, want %v", name, h, owners)
		}
	}
}

// subscribed waits until someone listens on the unlock channel of name in
// rdb.
func subscribed(t *testing.T, rdb redis.UniversalClient, name string) {
	t.Helper()
	ch := keys.Channel(name)
	eventually(t, 5*time.Second, "a waiter on "+ch, func() bool {
		return rdb.PubSubNumSub(context.Background(), ch).Val()[ch] >= 1
	})
}

// twoServers returns the shared test server and another one, each with a
// Client.
func twoServers(t *testing.T) (rdb1, rdb2 *redis.Client, c1, c2 *Client) {
	t.Helper()
	rdb1 = newRedis(t)
	rdb2 = extraServer(t).Client(t)
	return rdb1, rdb2, newClient(t, rdb1), newClient(t, rdb2)
}
