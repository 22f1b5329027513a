package rlock

import "errors"

var (
	// ErrNotHeld is returned by Unlock when the Mutex's owner does not hold
	// the lock: it was never locked, already fully unlocked, expired, or
	// force-unlocked. Nothing was changed in Redis.
	ErrNotHeld = errors.New("rlock: lock not held by this owner")

	// ErrClosed is returned by every operation after Client.Close, and by
	// waits that Close interrupted.
	ErrClosed = errors.New("rlock: client closed")

	// ErrInvalidName is returned by every operation of a lock whose name is
	// empty, or, on Redis Cluster, has braces without a hash tag ("a}b",
	// "a{b", "a{}b"): Redisson's naming rule would put its channel and keys
	// in another slot than the lock.
	ErrInvalidName = errors.New("rlock: lock name must not be empty")

	// ErrNotReplicated is returned by an acquisition that WithReplicaAck
	// made wait for replicas, when too few acknowledged it in time. The
	// acquisition was undone: the lock is not held by it.
	ErrNotReplicated = errors.New("rlock: acquisition not acknowledged by enough replicas")
)
