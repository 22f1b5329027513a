package redistest

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// getOn reads key directly from the server at addr.
func getOn(ctx context.Context, addr, key string) (string, error) {
	rdb := redis.NewClient(&redis.Options{Addr: addr})
	defer rdb.Close()
	return rdb.Get(ctx, key).Result()
}

// setUntilOn writes key through rdb until the write lands on the server at
// addr: a failover client may still hold connections to a former master
// until it hears of the switch.
func setUntilOn(ctx context.Context, t *testing.T, rdb *redis.Client, addr, key string) {
	t.Helper()
	err := waitUntil(ctx, "write lands on "+addr, func(ctx context.Context) error {
		if err := rdb.Set(ctx, key, addr, 0).Err(); err != nil {
			return err
		}
		_, err := getOn(ctx, addr, key)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestSentinelFailoverMovesMasterAndClientFollows(t *testing.T) {
	t.Parallel()
	s := SentinelFor(t, 2, 3)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	rdb := s.FailoverClient(t)

	old, err := s.MasterAddr(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := rdb.Set(ctx, "before", "1", 0).Err(); err != nil {
		t.Fatalf("set before failover: %v", err)
	}
	if got, err := getOn(ctx, old, "before"); err != nil || got != "1" {
		t.Fatalf("GET before on master %s = %q, %v; want \"1\"", old, got, err)
	}
	// Let the replicas acknowledge the write, so that the failover keeps it.
	if n, err := rdb.Wait(ctx, 2, 5*time.Second).Result(); err != nil || n != 2 {
		t.Fatalf("WAIT 2 = %d, %v", n, err)
	}

	begin := time.Now()
	if err := s.Failover(ctx); err != nil {
		t.Fatal(err)
	}
	t.Logf("failover took %v", time.Since(begin).Round(time.Millisecond))
	now, err := s.MasterAddr(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if now == old {
		t.Fatalf("master still %s after Failover", old)
	}

	setUntilOn(ctx, t, rdb, now, "after")
	if got, err := rdb.Get(ctx, "before").Result(); err != nil || got != "1" {
		t.Errorf("GET before through the failover client after failover = %q, %v; want \"1\"", got, err)
	}
}

func TestSentinelFailsOverKilledMaster(t *testing.T) {
	t.Parallel()
	s := SentinelFor(t, 1, 3)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	rdb := s.FailoverClient(t)
	if err := rdb.Ping(ctx).Err(); err != nil {
		t.Fatal(err)
	}

	begin := time.Now()
	old, err := s.KillMaster(ctx)
	if err != nil {
		t.Fatal(err)
	}
	now, err := s.AwaitNewMaster(ctx, old)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("failover after SIGKILL took %v", time.Since(begin).Round(time.Millisecond))
	setUntilOn(ctx, t, rdb, now, "after")
}
