package rlock

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/internal/keys"
)

// FencedMutex is a reentrant lock whose every acquisition also returns a
// fencing token: a number that grows with each acquisition of the lock, by
// any owner (Redisson's RFencedLock). A lease-based lock cannot stop a
// holder that was paused past its lease from acting as if it still held
// the lock; the token lets the resource it guards tell. Pass the token
// with every write, and have the storage reject a write whose token is
// lower than the highest it has seen: the stale holder's writes then fail.
//
// Apart from the tokens it is a Mutex: the same semantics, reentrancy
// (Reenter keeps the hold's token: only an acquisition takes a new one),
// watchdog and waiting.
// The counter lives at redisson_lock_token:{name} and never expires. Lock a
// name with FencedMutex only: a Mutex on the same name excludes it but
// takes no tokens.
type FencedMutex struct {
	owner
	fenced   *reentrant // the owner's kind, which keeps its latest token
	tokenKey string
}

// NewFencedMutex returns a new owner of the fenced lock called name, as
// NewMutex does. An empty name, or one with braces but no hash tag (see
// ErrInvalidName), yields a FencedMutex whose every operation returns an
// error wrapping ErrInvalidName.
func (c *Client) NewFencedMutex(name string) *FencedMutex {
	f := &FencedMutex{tokenKey: keys.Token(name)}
	id := c.ids.Next()
	f.fenced = newReentrant(c, name, id, true)
	f.init(c, name, id, keys.Channel(name), f.fenced, clientTurns{})
	return f
}

// Lock acquires the lock as Mutex.Lock does and returns its token.
func (f *FencedMutex) Lock(ctx context.Context) (token int64, err error) {
	token, _, err = f.acquireToken(ctx, noDeadline, 0)
	return token, opError("lock", f.name, err)
}

// LockWithLease acquires the lock with a fixed lease as
// Mutex.LockWithLease does and returns its token.
func (f *FencedMutex) LockWithLease(ctx context.Context, lease time.Duration) (token int64, err error) {
	if err := checkLease(lease); err != nil {
		return 0, opError("lock", f.name, err)
	}
	token, _, err = f.acquireToken(ctx, noDeadline, lease)
	return token, opError("lock", f.name, err)
}

// TryLock acquires the lock as Mutex.TryLock does; when it does, it returns
// the acquisition's token, else 0.
func (f *FencedMutex) TryLock(ctx context.Context, wait, lease time.Duration) (token int64, ok bool, err error) {
	if err := checkTry(wait, lease); err != nil {
		return 0, false, opError("try lock", f.name, err)
	}
	token, ok, err = f.acquireToken(ctx, deadlineAfter(wait), lease)
	return token, ok, opError("try lock", f.name, err)
}

// acquireToken acquires the lock by deadline and returns the
// acquisition's token (its kind's latest: the handle's line keeps the
// handle's other goroutines out until its Unlock), 0 when it did not
// acquire it.
func (f *FencedMutex) acquireToken(ctx context.Context, deadline time.Time, lease time.Duration) (int64, bool, error) {
	out, err := f.owner.enter(ctx, deadline, lease)
	if !out.ok {
		return 0, false, err
	}
	return f.fenced.last.Load(), true, err
}

// Token is the latest token granted for the lock, to any owner; 0 before
// the first acquisition.
func (f *FencedMutex) Token(ctx context.Context) (int64, error) {
	if err := f.usable(); err != nil {
		return 0, opError("token", f.name, err)
	}
	n, err := f.c.rdb.Get(ctx, f.tokenKey).Int64()
	if errors.Is(err, redis.Nil) {
		return 0, nil
	}
	return n, opError("token", f.name, err)
}

// Unlock releases one acquisition, as Mutex.Unlock does.
func (f *FencedMutex) Unlock(ctx context.Context) error { return f.exit(ctx) }

// Reenter acquires the lock this FencedMutex holds once more, as
// Mutex.Reenter does, and keeps its token: the hold stays the one its
// first acquisition's token fences. An error wrapping ErrNotHeld when it
// holds none.
func (f *FencedMutex) Reenter(ctx context.Context) error { return f.reenter(ctx, nil) }

// ForceUnlock deletes the lock whoever holds it and wakes a waiter, as
// Mutex.ForceUnlock does; the token counter is kept.
func (f *FencedMutex) ForceUnlock(ctx context.Context) (bool, error) { return f.forceRelease(ctx) }

// Locker returns f as a sync.Locker (tokens discarded), with the semantics
// of Mutex.Locker.
func (f *FencedMutex) Locker() sync.Locker {
	lock := func(ctx context.Context) error {
		_, err := f.Lock(ctx)
		return err
	}
	return locker{lock, f.Unlock}
}
