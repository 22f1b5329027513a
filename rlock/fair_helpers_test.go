package rlock

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/internal/keys"
)

// fairClient returns a Client of the test server with its own Redis
// connection pool, closed when the test ends.
func fairClient(t *testing.T, opts ...Option) (*Client, *redis.Client) {
	t.Helper()
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr})
	c, err := New(rdb, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = c.Close()
		_ = rdb.Close()
	})
	return c, rdb
}

// queueOf reads a fair lock's queue, head first.
func queueOf(t *testing.T, rdb *redis.Client, name string) []string {
	t.Helper()
	q, err := rdb.LRange(context.Background(), keys.Queue(name), 0, -1).Result()
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// deadlineOf reads owner's deadline (ms) in a fair lock's ZSET; ok is false
// when it has none.
func deadlineOf(t *testing.T, rdb *redis.Client, name, owner string) (ms float64, ok bool) {
	t.Helper()
	ms, err := rdb.ZScore(context.Background(), keys.Timeout(name), owner).Result()
	if errors.Is(err, redis.Nil) {
		return 0, false
	}
	if err != nil {
		t.Fatal(err)
	}
	return ms, true
}

// awaitQueue waits until the fair lock's queue is exactly want. Polling
// Redis is the only way to observe another goroutine's enqueueing.
func awaitQueue(t *testing.T, rdb *redis.Client, name string, want ...string) {
	t.Helper()
	eventually(t, 5*time.Second, fmt.Sprintf("queue of %q = %v", name, want), func() bool {
		return fmt.Sprint(queueOf(t, rdb, name)) == fmt.Sprint(want)
	})
}

// assertNoFairKeys fails unless the lock, its queue, its deadlines and its
// relock waiters are all gone from Redis.
func assertNoFairKeys(t *testing.T, rdb *redis.Client, name string) {
	t.Helper()
	n, err := rdb.Exists(context.Background(), name, keys.Queue(name), keys.Timeout(name), keys.FairWaiters(name)).Result()
	if err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Errorf("%q: %d of lock, queue and deadlines left in Redis", name, n)
	}
}

// asRedissonWaiter makes the queued owner look like a live Redisson
// waiter: not in relock's waiters hash, so a release wakes it instead of
// granting it the lock, nor counted among the relock waiters known at the
// head of the queue (the hash's "#clean" field, see queue/fair_common.lua:
// dropped, as after a Redisson client's change), and listening on its
// channel until the test ends.
func asRedissonWaiter(t *testing.T, rdb *redis.Client, name, owner string) {
	t.Helper()
	ctx := context.Background()
	if err := rdb.HDel(ctx, keys.FairWaiters(name), owner, "#clean").Err(); err != nil {
		t.Fatal(err)
	}
	sub := rdb.Subscribe(ctx, keys.WaiterChannel(name, owner))
	t.Cleanup(func() { _ = sub.Close() })
	if _, err := sub.Receive(ctx); err != nil {
		t.Fatal(err)
	}
}

// heldFair returns a fair Client with opts, a Redis client of the test
// server, the test's ctx, and a FairMutex of that Client holding name.
func heldFair(t *testing.T, name string, opts ...Option) (*Client, *redis.Client, context.Context, *FairMutex) {
	t.Helper()
	c, rdb := fairClient(t, opts...)
	ctx := ctxT(t)
	holder := c.NewFairMutex(name)
	if err := holder.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	return c, rdb, ctx, holder
}

// queueFairWaiters starts n FairMutexes of c locking name, one after the
// other, each once the one before is queued, and returns them with their
// lockAsync results.
func queueFairWaiters(t *testing.T, c *Client, rdb *redis.Client, name string, n int) ([]*FairMutex, []<-chan lockResult) {
	t.Helper()
	ctx := ctxT(t)
	var ws []*FairMutex
	var gots []<-chan lockResult
	for range n {
		w := c.NewFairMutex(name)
		ws = append(ws, w)
		want := append(queueOf(t, rdb, name), w.Owner())
		gots = append(gots, lockAsync(ctx, w))
		awaitQueue(t, rdb, name, want...)
	}
	return ws, gots
}

// lockAsync runs f.Lock in a goroutine; the returned channel yields its
// error and the time it returned. The goroutine reports to the channel
// only, so it may outlive a test that failed first.
func lockAsync(ctx context.Context, f interface{ Lock(context.Context) error }) <-chan lockResult {
	ch := make(chan lockResult, 1)
	go func() {
		err := f.Lock(ctx)
		ch <- lockResult{err: err, at: time.Now()}
	}()
	return ch
}

type lockResult struct {
	err error
	at  time.Time
}

// awaitLock waits for a lockAsync result and fails the test if it is an
// error or does not come within d.
func awaitLock(t *testing.T, ch <-chan lockResult, d time.Duration) time.Time {
	t.Helper()
	select {
	case r := <-ch:
		if r.err != nil {
			t.Fatalf("Lock: %v", r.err)
		}
		return r.at
	case <-time.After(d):
		t.Fatalf("Lock did not return within %v", d)
	}
	return time.Time{}
}

// mustUnlock unlocks l and fails the test on error.
func mustUnlock(t *testing.T, l interface{ Unlock(context.Context) error }) {
	t.Helper()
	if err := l.Unlock(context.Background()); err != nil {
		t.Fatal(err)
	}
}
