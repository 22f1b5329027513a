package queue

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/internal/keys"
)

// A release evicts a Redisson head whose deadline passed (Redisson's
// rule) and grants the lock to the relock waiter behind it.
func TestReleaseEvictsAStaleRedissonHead(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.hold("holder")
	f.rdb.RPush(ctx, keys.Queue(name), "java:1")
	f.rdb.ZAdd(ctx, keys.Timeout(name), redis.Z{Score: float64(f.now.Add(time.Second).UnixMilli()), Member: "java:1"})
	f.queue("b", 1)
	f.setNow(f.now.Add(2 * time.Second))
	f.release("holder")
	if h := f.holders(); len(h) != 1 || h["b"] != "1" {
		t.Fatalf("lock after the release: %v, want b holding past the stale Redisson head", h)
	}
	f.assertLine()
}

// A release grants the lock to a relock head that still listens however
// long it waited: its deadline does not evict it.
func TestReleaseGrantsALiveRelockHeadPastItsDeadline(t *testing.T) {
	f := newFixture(t)
	f.hold("holder")
	f.queue("a", 0)
	f.queue("b", 1)
	f.setNow(f.now.Add(lease + wait + time.Second))
	f.release("holder")
	if h := f.holders(); len(h) != 1 || h["a"] != "1" {
		t.Fatalf("lock after the release: %v, want a, the live head, holding", h)
	}
	f.assertLine("b")
}
