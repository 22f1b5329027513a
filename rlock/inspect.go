package rlock

import (
	"context"
	"errors"
	"time"
)

// LockInfo is what Redis knows of one lock, whichever client (Go or Java)
// took it (Client.Inspect), plus this Client's own view of it.
type LockInfo struct {
	Name string
	// Kind is what the keys in Redis show: KindRWMutex when the hash has a
	// mode field (KindFairRWMutex when a fair read-write line is beside
	// it), KindFairMutex when a fair queue is there, KindFencedMutex when
	// a fencing token counter is, else KindMutex. Empty when nothing of a
	// lock of that name is in Redis.
	Kind Kind
	// Held reports that the lock's hash exists.
	Held bool
	// Mode is ModeRead or ModeWrite for a held read-write lock.
	Mode string
	// TTL is the lock's remaining time to live: 0 when it is not held,
	// negative when the hash has no TTL.
	TTL time.Duration
	// Holders are the hash's owners, by owner id.
	Holders []Holder
	// Queue is a fair lock's line, head first.
	Queue []QueueEntry
	// Subscribers is how many subscriptions (one per waiting process and
	// kind of channel) listen on the lock's channels: its release channel
	// and, for a fair lock, its waiters' own channels.
	Subscribers int
	// Token is the last fencing token handed out (0 when none).
	Token int64
	// Local is this Client's holds and waiters of the lock (Activity).
	Local Activity
}

// Holder is one owner in a lock's hash.
type Holder struct {
	// Owner is the owner id, "<client id>:<sequence>" for relock
	// ("<client UUID>:<thread id>" for Redisson); a writer's without the
	// ":write" of its field.
	Owner string
	// Client is the client id part of Owner.
	Client string
	Count  int    // hold count
	Mode   string // ModeRead or ModeWrite in a read-write lock
	// TTL is a reader's own remaining lease in a read-write lock (the
	// longest of its read holds'); 0 otherwise.
	TTL time.Duration
}

// QueueEntry is one waiter in a fair lock's line.
type QueueEntry struct {
	Owner string // owner id
	Mode  string // ModeRead or ModeWrite in a fair read-write lock
	// Deadline is when the waiter is evicted unless it refreshes its place
	// (the line's ZSET score: Redis server time).
	Deadline time.Time
	// Relock reports a relock waiter (it may be granted the lock
	// directly); false for a Redisson one.
	Relock bool
}

// Inspect reads what Redis holds of the lock called name, in one round
// trip per kind of key: its holders, TTL, fair line, subscribers and
// fencing token, and adds this Client's own holds and waiters of it. It
// changes nothing. A key of that name that is not a lock is an error
// wrapping ErrWrongType.
func (c *Client) Inspect(ctx context.Context, name string) (LockInfo, error) {
	return LockInfo{}, opError("inspect", name, errors.New("not implemented"))
}

// Locks returns the names of the locks whose names match pattern (SCAN's
// glob syntax), sorted, scanning every master of a Redis Cluster; keys
// that are not lock hashes are left out. It never sends KEYS.
func (c *Client) Locks(ctx context.Context, pattern string) ([]string, error) {
	return nil, opError("locks", pattern, errors.New("not implemented"))
}

// ForceUnlock deletes the lock called name whoever holds it, whatever its
// kind (as Inspect tells it), and wakes its waiters as that kind does; it
// reports whether there was a lock. Meant for operators.
func (c *Client) ForceUnlock(ctx context.Context, name string) (bool, error) {
	return false, opError("force unlock", name, errors.New("not implemented"))
}
