package queue

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/internal/keys"
)

// A head whose deadline passed once its turn came (the lock expired and
// nobody took it) is evicted by the next attempt of anyone, and the waiter
// behind it takes the lock.
func TestStaleHeadIsEvicted(t *testing.T) {
	f := newFixture(t)
	f.hold("holder")
	f.queue("a", 0)
	b := f.queue("b", 1)
	f.mr.FastForward(lease)
	f.setNow(f.now.Add(lease + wait + time.Millisecond))
	a, err := b.Attempt(context.Background(), f.rdb, lease, 0)
	if err != nil || !a.Acquired {
		t.Fatalf("b after a's deadline: %+v, %v; want the lock", a, err)
	}
	f.assertLine()
}

// While the lock is held, however long, no live waiter is purged: the
// head's deadline is kept a wait timeout away, the others keep their
// distance behind it, and a Redisson waiter gets its turn.
func TestWaitersOutliveTheirDeadlinesWhileTheLockIsHeld(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.hold("holder")
	a := f.queue("a", 0)
	// What Redisson's tryLock script writes for a waiter behind a.
	f.rdb.RPush(ctx, keys.Queue(name), "java:1")
	f.rdb.ZAdd(ctx, keys.Timeout(name), redis.Z{Score: float64(f.now.UnixMilli() + f.deadline("a") + wait.Milliseconds()), Member: "java:1"})
	b := f.queue("b", 2)
	f.setNow(f.now.Add(lease + 3*wait))
	if got, err := b.Attempt(ctx, f.rdb, lease, 0); err != nil || got.Position != 2 {
		t.Fatalf("b long after every deadline: %+v, %v; want still third", got, err)
	}
	f.assertLine("a", "java:1", "b")
	if d := f.deadline("a"); d != wait.Milliseconds() {
		t.Errorf("a's deadline %d ms from now, want a wait timeout (%d)", d, wait.Milliseconds())
	}
	if d := f.deadline("java:1") - f.deadline("a"); d != wait.Milliseconds() {
		t.Errorf("java:1's deadline %d ms behind a's, want a wait timeout", d)
	}
	f.release("holder")
	if got, err := a.Claim(ctx, f.rdb, lease); err != nil || !got.Acquired {
		t.Fatalf("a's claim: %+v, %v", got, err)
	}
	f.setNow(f.now.Add(lease + 3*wait))
	msgs := f.published(func() { f.release("a") }, "java:1")
	if !slices.Contains(msgs, f.q.Channel("java:1")+" "+keys.UnlockMessage) {
		t.Errorf("a's release published %q: java:1 not told its turn", msgs)
	}
	f.assertLine("java:1", "b")
	// Its own script purges the heads whose deadline passed first.
	if d := f.deadline("java:1"); d < wait.Milliseconds() {
		t.Errorf("java:1 told its turn with its deadline %d ms from now, want at least a wait timeout (%d)", d, wait.Milliseconds())
	}
}
