package rlock

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/internal/keys"
	"github.com/relock-go/relock/scripts"
)

// ErrUpgrade is the cause of a write acquisition by an owner that holds
// the read lock in Redis: the write lock waits for every reader to leave,
// this one included, so it would wait forever (Redisson's RReadWriteLock
// does). An RWMutex handle that reads keeps its own writers in its line
// (they wait for its readers, as sync.RWMutex's do), so the refusal is
// what the scripts answer should the hash say otherwise. Release the read
// lock first; the other way round, a writer may read (RReenter).
var ErrUpgrade = errors.New("read lock held: upgrading to the write lock would deadlock")

// RWMutex is one owner of a distributed reader/writer lock: Redisson's
// RReadWriteLock on the wire, so Go and Java readers and writers share one
// lock. Many owners may hold the read lock at once; the write lock
// excludes every other owner, reader or writer.
//
// A handle behaves like sync.RWMutex for the goroutines sharing it: its
// readers hold it together, a writer waits for them and excludes them.
// Re-entry is explicit, Reenter for the write lock and RReenter for a read
// hold; a writer may also read (RReenter: release the write lock then,
// and it still reads). Waiters sleep on the
// lock's channel (redisson_rwlock:{name}): a writer's release wakes every
// waiter, so readers go in together; the watchdog renews read and write
// holds taken without a lease. The methods are safe for concurrent use.
//
// NewFairRWMutex makes an RWMutex whose readers and writers are granted
// the lock in arrival order.
//
// The lock's hash holds mode ("read" or "write"), each reader's hold count
// under its owner id, the writer's under "<owner id>:write", and each read
// hold's lease in a key of its own ({name}:<owner id>:rwlock_timeout:<n>),
// as Redisson keeps them.
type RWMutex struct {
	w    rwSide // the write lock
	r    rwSide // the read lock
	lock *scripts.RWLock
}

// rwSide is one side, read or write, of an RWMutex: a handle of its own
// kind that shares the RWMutex's owner id, and a Member of a MultiLock.
type rwSide struct{ handle }

// NewRWMutex returns a new owner of the read-write lock called name; the
// name is the lock's Redis key. An empty name, or one with braces but no
// hash tag (see ErrInvalidName), yields an RWMutex whose every operation
// returns an error wrapping ErrInvalidName.
func (c *Client) NewRWMutex(name string) *RWMutex {
	rw := &RWMutex{lock: scripts.NewRWLock(name)}
	id, channel := c.ids.Next(), keys.RWChannel(name)
	rw.w.init(c, name, id, channel, &rwKind{rdb: c.sender, lock: rw.lock, owner: id}, clientTurns{})
	rw.r.init(c, name, id, channel, &rwKind{rdb: c.sender, lock: rw.lock, owner: id, read: true}, clientTurns{shared: true})
	rw.shareLine()
	return rw
}

// rwKind is one side of Redisson's RReadWriteLock.
type rwKind struct {
	rdb   redis.Scripter
	lock  *scripts.RWLock
	owner string
	read  bool
}

func (k *rwKind) attempt(ctx context.Context, rdb redis.Scripter, lease time.Duration, count int) (outcome, error) {
	var a scripts.Acquired
	var err error
	if k.read {
		a, err = k.lock.AcquireRead(ctx, rdb, k.owner, lease, count)
	} else {
		a, err = k.lock.AcquireWrite(ctx, rdb, k.owner, lease, count)
	}
	return outcome{ok: a.OK, ttl: a.TTL}, upgradeError(err)
}

// upgradeError is err, with the scripts' refused upgrade as ErrUpgrade.
func upgradeError(err error) error {
	if errors.Is(err, scripts.ErrUpgrade) {
		return ErrUpgrade
	}
	return err
}

func (k *rwKind) release(ctx context.Context, u scripts.Unlock) (scripts.Reply, error) {
	if k.read {
		return uncounted(k.lock.ReleaseRead(ctx, k.rdb, u))
	}
	return uncounted(k.lock.ReleaseWrite(ctx, k.rdb, u))
}

func (k *rwKind) forceRelease(ctx context.Context, publish string) (bool, error) {
	return k.lock.ForceRelease(ctx, k.rdb, publish)
}

func (k *rwKind) renewal() renewal { return rwRenewal(k.lock.Name(), k.owner, k.read) }

func (k *rwKind) describe() (Kind, string) { return KindRWMutex, rwMode(k.renewal()) }

func (k *rwKind) bare() bool { return false }

// rwMode is the mode of a side of a read-write lock that renews r.
func rwMode(r renewal) string {
	if r.renew == scripts.ReadRenewer {
		return ModeRead
	}
	return ModeWrite
}

// rwRenewal is what the watchdog renews for owner's read or write hold of
// the read-write lock name: every lease key of its read acquisitions, or
// the hash.
func rwRenewal(name, owner string, read bool) renewal {
	if read {
		return renewal{scripts.ReadRenewer, scripts.Held{Key: name, Owner: owner}}
	}
	return renewal{scripts.HashRenewer, scripts.Held{Key: name, Owner: keys.WriteField(owner)}}
}

// Name is the lock's name, which is also its Redis key.
func (rw *RWMutex) Name() string { return rw.w.name }

// Owner is this owner's id, "<client id>:<sequence>": the read hold's hash
// field; the write hold's is Owner() + ":write".
func (rw *RWMutex) Owner() string { return rw.w.id }

// Lock acquires the write lock, waiting as long as it takes or until ctx
// ends, as Mutex.Lock does; it fails at once with ErrUpgrade when this
// owner holds the read lock.
func (rw *RWMutex) Lock(ctx context.Context) error { return rw.w.Lock(ctx) }

// LockWithLease acquires the write lock with a fixed lease, as
// Mutex.LockWithLease does.
func (rw *RWMutex) LockWithLease(ctx context.Context, lease time.Duration) error {
	return rw.w.LockWithLease(ctx, lease)
}

// TryLock acquires the write lock if it can within wait, as Mutex.TryLock
// does.
func (rw *RWMutex) TryLock(ctx context.Context, wait, lease time.Duration) (bool, error) {
	return rw.w.TryLock(ctx, wait, lease)
}

// Unlock releases one acquisition of the write lock, as Mutex.Unlock does.
// The last one wakes every waiter; read locks this owner took while
// writing stay held.
func (rw *RWMutex) Unlock(ctx context.Context) error { return rw.w.Unlock(ctx) }

// RLock acquires a read lock, waiting as long as it takes or until ctx
// ends: it is granted while no other owner holds the write lock.
func (rw *RWMutex) RLock(ctx context.Context) error { return rw.r.Lock(ctx) }

// RLockWithLease acquires a read lock with a fixed lease, as
// Mutex.LockWithLease does (with its rules for the lease).
func (rw *RWMutex) RLockWithLease(ctx context.Context, lease time.Duration) error {
	return rw.r.LockWithLease(ctx, lease)
}

// TryRLock acquires a read lock if it can within wait, with TryLock's
// arguments and results.
func (rw *RWMutex) TryRLock(ctx context.Context, wait, lease time.Duration) (bool, error) {
	return rw.r.TryLock(ctx, wait, lease)
}

// RUnlock releases one acquisition of the read lock. The last reader's
// release, with no writer left, deletes the lock and wakes a waiter.
func (rw *RWMutex) RUnlock(ctx context.Context) error { return rw.r.Unlock(ctx) }

// HoldCount is how many times this owner holds the write lock, as
// Mutex.HoldCount reports it.
func (rw *RWMutex) HoldCount(ctx context.Context) (int, error) { return rw.w.HoldCount(ctx) }

// RHoldCount is how many times this owner holds the read lock, as
// Mutex.HoldCount reports it.
func (rw *RWMutex) RHoldCount(ctx context.Context) (int, error) { return rw.r.HoldCount(ctx) }

// Lost is Mutex.Lost for the write hold.
func (rw *RWMutex) Lost() <-chan struct{} { return rw.w.Lost() }

// RLost is Mutex.Lost for the read hold.
func (rw *RWMutex) RLost() <-chan struct{} { return rw.r.Lost() }

// Context is Mutex.Context for the write hold.
func (rw *RWMutex) Context(parent context.Context) (context.Context, context.CancelFunc) {
	return rw.w.Context(parent)
}

// RContext is Mutex.Context for the read hold.
func (rw *RWMutex) RContext(parent context.Context) (context.Context, context.CancelFunc) {
	return rw.r.Context(parent)
}

// Extend is Mutex.Extend for a write hold with a fixed lease.
func (rw *RWMutex) Extend(ctx context.Context, lease time.Duration) error {
	return rw.w.Extend(ctx, lease)
}

// RExtend is Mutex.Extend for a read hold with a fixed lease.
func (rw *RWMutex) RExtend(ctx context.Context, lease time.Duration) error {
	return rw.r.Extend(ctx, lease)
}

// IsLocked reports whether any owner holds the lock, reading or writing,
// as Mutex.IsLocked reports it.
func (rw *RWMutex) IsLocked(ctx context.Context) (bool, error) { return rw.w.IsLocked(ctx) }

// Mode is the lock's mode: "write" while an owner holds the write lock,
// "read" while only readers hold it, "" when it is free. A key at the
// lock's name that holds a value of another kind is an error wrapping
// ErrWrongType.
func (rw *RWMutex) Mode(ctx context.Context) (string, error) {
	if err := rw.w.usable(); err != nil {
		return "", opError("mode", rw.w.name, err)
	}
	mode, err := rw.lock.Mode(ctx, rw.w.c.rdb)
	if err == nil && mode == "" {
		_, err = scripts.State(ctx, rw.w.c.rdb, rw.w.name) // a hash that is no lock: ErrWrongType
	}
	return mode, opError("mode", rw.w.name, named(ctx, rw.w.c.rdb, rw.w.name, "lock", err))
}

// TTL is the lock's remaining time to live, as Mutex.TTL reports it.
func (rw *RWMutex) TTL(ctx context.Context) (time.Duration, error) { return rw.w.TTL(ctx) }

// ForceUnlock deletes the lock whatever its mode and holders and wakes
// every waiter; it reports whether there was a lock. Meant for operators.
func (rw *RWMutex) ForceUnlock(ctx context.Context) (bool, error) { return rw.w.ForceUnlock(ctx) }

// shareLine gives the two sides one line, the read side's slots shared,
// as sync.RWMutex's, and makes them siblings.
func (rw *RWMutex) shareLine() {
	rw.r.line, rw.r.shared = rw.w.line, true
	rw.w.sibling, rw.r.sibling = &rw.r.owner, &rw.w.owner
}

// Reenter acquires the write lock this handle holds once more, released
// by one more Unlock, as Mutex.Reenter does; an error wrapping ErrNotHeld when
// it holds no write lock.
func (rw *RWMutex) Reenter(ctx context.Context) error { return rw.w.Reenter(ctx) }

// RReenter adds one read hold to the read lock this handle holds, or, when
// it holds the write lock, takes a read hold beside it (a writer may also
// read, as in Redisson: after its Unlock it keeps reading, until RUnlock);
// an error wrapping ErrNotHeld when it holds neither. Each read hold is
// released by one RUnlock. Use it, not RLock, to read again while this
// handle holds the lock: RLock waits behind a writer queued at the handle,
// and behind the handle's own write lock, as sync.RWMutex does.
func (rw *RWMutex) RReenter(ctx context.Context) error { return rw.r.reenter(ctx, &rw.w.owner) }

// Locker returns the write lock as a sync.Locker, with the semantics of
// Mutex.Locker.
func (rw *RWMutex) Locker() sync.Locker { return rw.w.Locker() }

// RLocker returns the read lock as a sync.Locker (RLock and RUnlock), with
// the semantics of Mutex.Locker.
func (rw *RWMutex) RLocker() sync.Locker { return rw.r.Locker() }

// WriteMember is the write lock as a Member of a MultiLock.
func (rw *RWMutex) WriteMember() Member { return &rw.w }

// ReadMember is the read lock as a Member of a MultiLock.
func (rw *RWMutex) ReadMember() Member { return &rw.r }
