package scripts

import (
	"context"
	_ "embed"
	"errors"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/internal/keys"
)

var (
	//go:embed rw_read_acquire.lua
	rwReadAcquireSrc string
	//go:embed rw_read_release.lua
	rwReadReleaseSrc string
	//go:embed rw_write_acquire.lua
	rwWriteAcquireSrc string
	//go:embed rw_write_release.lua
	rwWriteReleaseSrc string
	//go:embed rw_force_release.lua
	rwForceReleaseSrc string
	//go:embed rw_read_renew.lua
	rwReadRenewSrc string

	rwReadAcquire  = NewRW(rwReadAcquireSrc)
	rwReadRelease  = NewRW(rwReadReleaseSrc)
	rwWriteAcquire = NewRW(rwWriteAcquireSrc)
	rwWriteRelease = NewRW(rwWriteReleaseSrc)
	rwForceRelease = New(rwForceReleaseSrc)
	rwReadRenew    = redis.NewScript(rwReadRenewSrc)
)

// ReadRenewer renews read holds of read-write locks: each Held names the
// lock and the reader's owner id.
var ReadRenewer Renewer = &renewer{script: rwReadRenew, keys: func(h Held) []string {
	return []string{h.Key, keys.ReadTimeouts(h.Key, h.Owner)}
}}

// ErrUpgrade is the reply of a write acquisition by an owner that holds the
// read lock: granting it would need every reader to leave, itself
// included, so it would wait forever.
var ErrUpgrade = errors.New("the owner count the read lock, which cannot be upgraded to the write lock")

// RWLock is one read-write lock, Redisson's RReadWriteLock: its keys,
// computed once, and the scripts that change it. It holds no state and is
// safe for concurrent use.
type RWLock struct {
	name    string
	lock    []string // lock hash
	channel string
	base    string // ReadTimeoutsBase
}

// NewRWLock returns the read-write lock called name.
func NewRWLock(name string) *RWLock {
	return &RWLock{name: name, lock: []string{name}, channel: keys.RWChannel(name), base: keys.ReadTimeoutsBase(name)}
}

// Name is the lock's name, its hash's key.
func (l *RWLock) Name() string { return l.name }

// AcquireRead takes or re-enters a read lock for owner, with lease; count
// is owner's read hold count before, as it knows it.
func (l *RWLock) AcquireRead(ctx context.Context, rdb redis.Scripter, owner string, lease time.Duration, count int) (Acquired, error) {
	vals, err := rwReadAcquire.Run(ctx, rdb, []string{l.name, keys.ReadTimeouts(l.name, owner)},
		Millis(lease), owner, keys.WriteField(owner), count).Int64Slice()
	return acquired(vals, err)
}

// AcquireWrite takes or re-enters the write lock for owner, with lease;
// count is owner's write hold count before, as it knows it. It fails with
// ErrUpgrade when owner holds the read lock and not the write
// lock.
func (l *RWLock) AcquireWrite(ctx context.Context, rdb redis.Scripter, owner string, lease time.Duration, count int) (Acquired, error) {
	vals, err := rwWriteAcquire.Run(ctx, rdb, l.lock, Millis(lease), keys.WriteField(owner), owner, count).Int64Slice()
	if err == nil && len(vals) == 2 && vals[0] == 2 {
		return Acquired{TTL: time.Duration(vals[1]) * time.Millisecond}, ErrUpgrade
	}
	return acquired(vals, err)
}

// ReleaseRead releases one read acquisition of u.Owner; its remaining ones
// get u.Lease again. The last reader's release deletes the lock and publishes
// the unlock message, as Redisson does.
func (l *RWLock) ReleaseRead(ctx context.Context, rdb redis.Scripter, u Unlock) (Release, error) {
	return Outcome(rwReadRelease.Run(ctx, rdb,
		[]string{l.name, l.channel, keys.ReadTimeouts(l.name, u.Owner), l.base, u.Record},
		keys.UnlockMessage, u.Owner, u.Publish, Millis(u.RecordTTL), Millis(u.Lease), u.Seq).Int64())
}

// ReleaseWrite releases one write hold of u.Owner. The last one deletes
// the lock, or leaves it to the read locks the owner took while writing,
// and publishes the read-unlock message, which wakes every waiter.
func (l *RWLock) ReleaseWrite(ctx context.Context, rdb redis.Scripter, u Unlock) (Release, error) {
	return Outcome(rwWriteRelease.Run(ctx, rdb, []string{l.name, l.channel, u.Record},
		keys.ReadUnlockMessage, Millis(u.Lease), keys.WriteField(u.Owner), u.Publish, Millis(u.RecordTTL), u.Seq).Int64())
}

// ForceRelease deletes the lock whatever its mode and holders and wakes
// every waiter; it reports whether there was one.
func (l *RWLock) ForceRelease(ctx context.Context, rdb redis.Scripter, publish string) (bool, error) {
	n, err := rwForceRelease.Run(ctx, rdb, []string{l.name, l.channel}, keys.ReadUnlockMessage, publish).Int64()
	if err != nil {
		return false, err
	}
	return n == 1, nil
}

// Mode is the lock's mode: "read", "write", or "" when it is free.
func (l *RWLock) Mode(ctx context.Context, rdb redis.Cmdable) (string, error) {
	mode, err := rdb.HGet(ctx, l.name, "mode").Result()
	if errors.Is(err, redis.Nil) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	if mode != "read" && mode != "write" {
		// WRONGTYPE, as Redis says of a key of another type, and worded
		// as hold.lua's not_a words it.
		return "", errors.New("WRONGTYPE it is a hash that is not a read-write lock")
	}
	return mode, nil
}
