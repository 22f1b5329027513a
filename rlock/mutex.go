package rlock

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/internal/keys"
	"github.com/relock-go/relock/scripts"
)

// Mutex is one owner of a distributed reentrant lock, which behaves like a
// sync.Mutex for the goroutines that share it: while one of them holds it,
// another's Lock waits in the process (no command to Redis, ctx honoured)
// until Unlock, and TryLock with no wait returns false at once. Share one
// *Mutex per critical section among a process's goroutines, as one would
// a sync.Mutex; other processes, and other Mutexes of the same name, are
// excluded through Redis.
//
// Re-entry is explicit: Reenter acquires the lock the Mutex holds once
// more, and each acquisition needs its Unlock, the hold count kept in the
// lock's hash as Redisson's RLock keeps it. The methods are safe for concurrent use.
type Mutex struct {
	handle
}

// NewMutex returns a new owner of the lock called name: each call is a
// distinct owner with its own owner id. The name is the lock's Redis key.
// An empty name, or one with braces but no hash tag (see ErrInvalidName),
// yields a Mutex whose every operation returns an error wrapping
// ErrInvalidName.
func (c *Client) NewMutex(name string) *Mutex {
	m := &Mutex{}
	id := c.ids.Next()
	m.init(c, name, id, keys.Channel(name), newReentrant(c, name, id, false), clientTurns{handoff: true})
	return m
}

// reentrant is Redisson's RLock (Mutex) and, fenced, its RFencedLock
// (FencedMutex): one field of the lock's hash per owner.
type reentrant struct {
	rdb    scripts.Runner // the Client's sender
	lock   *scripts.Lock
	held   scripts.Held
	fenced bool
	last   atomic.Int64 // the token of the owner's latest acquisition (fenced)
}

func newReentrant(c *Client, name, id string, fenced bool) *reentrant {
	return &reentrant{rdb: c.sender, lock: scripts.NewLock(name), held: scripts.Held{Key: name, Owner: id}, fenced: fenced}
}

func (k *reentrant) attempt(ctx context.Context, rdb redis.Scripter, lease time.Duration, count int) (outcome, error) {
	var a scripts.Acquired
	var err error
	if k.fenced {
		a, err = k.lock.AcquireFenced(ctx, rdb, k.held.Owner, lease, count, k.last.Load())
		if a.OK {
			k.last.Store(a.Token)
		}
	} else {
		a, err = k.lock.Acquire(ctx, rdb, k.held.Owner, lease, count)
	}
	return outcome{ok: a.OK, ttl: a.TTL}, err
}

func (k *reentrant) release(ctx context.Context, u scripts.Unlock) (scripts.Reply, error) {
	return k.lock.Release(ctx, k.rdb, u)
}

func (k *reentrant) forceRelease(ctx context.Context, publish string) (bool, error) {
	return k.lock.ForceRelease(ctx, k.rdb, publish)
}

func (k *reentrant) renewal() renewal { return renewal{scripts.HashRenewer, k.held} }

func (k *reentrant) describe() (Kind, string) {
	if k.fenced {
		return KindFencedMutex, ""
	}
	return KindMutex, ""
}

// bare: a reentrant lock's release script takes a bare request.
func (k *reentrant) bare() bool { return true }
