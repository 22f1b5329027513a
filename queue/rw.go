package queue

import (
	"context"
	_ "embed"
	"fmt"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/internal/keys"
	"github.com/relock-go/relock/scripts"
)

var (
	//go:embed fair_rw_acquire.lua
	rwAcquireSrc string
	//go:embed fair_rw_release.lua
	rwReleaseSrc string
	//go:embed fair_rw_leave.lua
	rwLeaveSrc string
	//go:embed fair_rw_force_release.lua
	rwForceReleaseSrc string

	rwAcquire      = scripts.NewRW(commonSrc + rwAcquireSrc)
	rwRelease      = scripts.NewRW(commonSrc + rwReleaseSrc)
	rwLeave        = scripts.New(commonSrc + rwLeaveSrc)
	rwForceRelease = scripts.New(commonSrc + rwForceReleaseSrc)
)

// RWQueue is the queue of one fair read-write lock: Redisson's read-write
// lock hash, and relock's own queue beside it (keys.RWQueue, keys.RWTimeout)
// of entries, each a waiter's hash field: its owner id to read, '<owner
// id>:write' to write. Writers take their turn at the head; readers when
// only readers are ahead, together. It holds no state of its own and is
// safe for concurrent use.
type RWQueue struct {
	core        // keys: lock, queue, deadlines, channel
	base string // keys.ReadTimeoutsBase
}

// NewRW returns the queue of the fair read-write lock called name, with the
// wait timeout and publish command as New's.
func NewRW(rdb redis.Scripter, name string, wait time.Duration, pub func() string) *RWQueue {
	ks := []string{name, keys.RWQueue(name), keys.RWTimeout(name), keys.RWChannel(name)}
	return &RWQueue{core: newCore(rdb, name, ks, wait, pub), base: keys.ReadTimeoutsBase(name)}
}

// Channel is the channel on which the waiter with entry alone is woken.
func (q *RWQueue) Channel(entry string) string { return keys.RWChannel(q.name) + ":" + entry }

// Place returns a Place for entry (a reader's owner id, or a writer's
// write field).
func (q *RWQueue) Place(entry string) *Place { return &Place{q: q, owner: entry} }

// TryAcquire takes or re-enters the side of the lock that entry names if
// it can now, as Queue.TryAcquire does; a reader asking to write gets
// scripts.ErrUpgrade.
func (q *RWQueue) TryAcquire(ctx context.Context, rdb redis.Scripter, entry string, lease time.Duration, count int) (Attempt, error) {
	return q.attempt(ctx, rdb, entry, lease, count, try, "")
}

// ownerOf is the owner id of entry.
func ownerOf(entry string) string { return strings.TrimSuffix(entry, ":write") }

// attempt makes an attempt of entry's; the fair read-write queue grants
// nothing by message, so wait ids are not used.
func (q *RWQueue) attempt(ctx context.Context, rdb redis.Scripter, entry string, lease time.Duration, count int, m mode, _ string) (Attempt, error) {
	owner := ownerOf(entry)
	vals, err := rwAcquire.Run(ctx, rdb, append(q.keys[:4:4], keys.ReadTimeouts(q.name, owner)),
		scripts.Millis(lease), entry, owner, scripts.Millis(q.wait), string(m), keys.UnlockMessage, q.pub(), count).Int64Slice()
	switch {
	case err != nil:
		return Attempt{}, err
	case len(vals) == 2 && vals[0] == 1:
		return Attempt{Acquired: true, Position: -1}, nil
	case len(vals) == 2 && vals[0] == 2:
		return Attempt{Position: -1, TTL: time.Duration(vals[1]) * time.Millisecond}, scripts.ErrUpgrade
	case len(vals) != 3:
		return Attempt{}, fmt.Errorf("unexpected fair read-write acquire reply %v", vals)
	}
	return Attempt{Position: int(vals[2]), TTL: pttl(vals[1])}, nil
}

// Release releases one acquisition of the side whose field is u.Owner; the head
// of the queue is woken when its turn has come.
func (q *RWQueue) Release(ctx context.Context, u scripts.Unlock) (scripts.Release, error) {
	owner := ownerOf(u.Owner)
	return scripts.Outcome(rwRelease.Run(ctx, q.rdb,
		append(q.keys[:4:4], u.Record, keys.ReadTimeouts(q.name, owner), q.base),
		keys.UnlockMessage, scripts.Millis(u.Lease), u.Owner, q.pub(), scripts.Millis(u.RecordTTL), owner, u.Seq).Int64())
}

// ForceRelease deletes the lock whoever holds it and wakes the head of the
// queue; it reports whether there was a lock. The queue is kept.
func (q *RWQueue) ForceRelease(ctx context.Context) (bool, error) {
	n, err := rwForceRelease.Run(ctx, q.rdb, q.keys, keys.UnlockMessage, q.pub()).Int64()
	return n == 1, err
}

func (q *RWQueue) leave(ctx context.Context, entry string) error {
	return rwLeave.Run(ctx, q.rdb, q.keys, entry, scripts.Millis(q.wait), keys.UnlockMessage, q.pub()).Err()
}
