package rlock

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/internal/keys"
	"github.com/relock-go/relock/queue"
	"github.com/relock-go/relock/scripts"
)

// NewFairRWMutex returns a new owner of the fair read-write lock called
// name: an RWMutex, on Redisson's read-write lock hash, whose readers and
// writers are granted the lock in arrival order. Owners that must wait
// join one queue in Redis (relock_rwlock_queue:{name}, with the deadlines
// in relock_rwlock_timeout:{name}; Redisson has no fair read-write lock).
// A writer takes the lock when it is the head of the queue; a reader when
// no writer is ahead of it, so consecutive readers go in together, and a
// reader arriving after a waiting writer waits behind it: a stream of
// readers never starves a writer. Re-entries, and a writer taking the read
// lock, never queue.
//
// Each waiter is woken on a channel of its own, by the release that gives
// it its turn (every reader at the head of the queue at once); a waiter
// that gives up leaves the queue, and one whose process died is evicted
// about the fair wait timeout (WithFairWaitTimeout) after reaching the
// head, as for FairMutex. Each side of the RWMutex, read and write, has
// its own place in the queue. A name should be locked fairly or not, never
// both: the two kinds exclude each other correctly, but wake only waiters
// of their own kind.
func (c *Client) NewFairRWMutex(name string) *RWMutex {
	rw := &RWMutex{lock: scripts.NewRWLock(name)}
	q := queue.NewRW(c.rdb, name, c.opts.fairWaitTimeout, c.queuePublish)
	id, channel := c.ids.Next(), keys.RWChannel(name)
	write := keys.WriteField(id)
	rw.w.init(c, name, id, channel, &fairRW{q: q, entry: write, renew: rwRenewal(name, id, false)}, newFairTurns(c, q, write))
	rw.r.init(c, name, id, channel, &fairRW{q: q, entry: id, renew: rwRenewal(name, id, true)}, newFairTurns(c, q, id))
	rw.shareLine()
	return rw
}

// fairRW is one side of a fair read-write lock: its entry is the side's
// hash field, the owner id to read, the write field to write.
type fairRW struct {
	q     *queue.RWQueue
	entry string
	renew renewal
}

// attempt takes the side if it can right now, and never queues: the
// queueing attempts are the turn's (fairTurn).
func (k *fairRW) attempt(ctx context.Context, rdb redis.Scripter, lease time.Duration, count int) (outcome, error) {
	a, err := k.q.TryAcquire(ctx, rdb, k.entry, lease, count)
	return fairOutcome(a), upgradeError(err)
}

func (k *fairRW) release(ctx context.Context, u scripts.Unlock) (scripts.Reply, error) {
	u.Owner = k.entry
	return uncounted(k.q.Release(ctx, u))
}

func (k *fairRW) forceRelease(ctx context.Context, _ string) (bool, error) {
	return k.q.ForceRelease(ctx)
}

func (k *fairRW) renewal() renewal { return k.renew }

func (k *fairRW) describe() (Kind, string) { return KindFairRWMutex, rwMode(k.renew) }

func (k *fairRW) bare() bool { return false }
