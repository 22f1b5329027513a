package interop

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Work is one round of the peer's worker protocol, on the Go side, under
// the lock that lock and unlock take and release: count the workers inside
// (counter:ov, its maximum in counter:ovmax), log tag, and increment the
// counter by a read and a later write, which loses updates unless the lock
// excludes.
func Work(ctx context.Context, rdb *redis.Client, counter, tag string, lock, unlock func(context.Context) error) error {
	if err := lock(ctx); err != nil {
		return err
	}
	inside := rdb.Incr(ctx, counter+":ov").Val()
	if inside > rdb.IncrBy(ctx, counter+":ovmax", 0).Val() {
		rdb.Set(ctx, counter+":ovmax", inside, 0)
	}
	rdb.RPush(ctx, counter+":log", tag)
	n, _ := rdb.Get(ctx, counter).Int64()
	time.Sleep(time.Millisecond)
	rdb.Set(ctx, counter, n+1, 0)
	rdb.Decr(ctx, counter+":ov")
	return unlock(ctx)
}

// CheckCounter fails the test unless counter reached want with never more
// than one worker inside.
func CheckCounter(t *testing.T, rdb *redis.Client, counter string, want int) {
	t.Helper()
	ctx := context.Background()
	if n, _ := rdb.Get(ctx, counter).Int(); n != want {
		t.Fatalf("counter = %d, want %d: an update was lost", n, want)
	}
	if max, _ := rdb.Get(ctx, counter+":ovmax").Int(); max != 1 {
		t.Fatalf("up to %d workers inside at once, want 1", max)
	}
}

// wakeUpBound is the longest wake-up latency, in milliseconds, that a
// waiter woken by pub/sub takes on a loaded machine: far less than its
// timed retry, 30 s away with a watchdog's lease.
const wakeUpBound = 5000

// checkWakeUp logs the wake-up latency lat (ms) of what, and fails the
// test when it is so long that the waiter cannot have been woken by
// pub/sub (wakeUpBound).
func checkWakeUp(t *testing.T, what string, lat float64) {
	t.Helper()
	t.Logf("%s: %.2f ms", what, lat)
	if lat > wakeUpBound {
		t.Fatalf("%s: woken %.0f ms after the release, not by pub/sub", what, lat)
	}
}
