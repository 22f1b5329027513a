package main

import (
	"context"
	"errors"
	"time"

	"github.com/go-co-op/gocron/v2"
	"github.com/go-redsync/redsync/v4"
	"github.com/go-redsync/redsync/v4/redis/goredis/v9"
	"github.com/redis/go-redis/v9"
)

// errBusy is the lockers' error when the job's key is taken.
var errBusy = errors.New("the job's lock is taken")

// setnxLocker is the locker gocron's documentation describes: SET NX with
// a TTL, DEL to unlock.
type setnxLocker struct {
	rdb *redis.Client
	ttl time.Duration
}

func (l setnxLocker) Lock(ctx context.Context, key string) (gocron.Lock, error) {
	ok, err := l.rdb.SetNX(ctx, key, "locked", l.ttl).Result()
	switch {
	case err != nil:
		return nil, err
	case !ok:
		return nil, errBusy
	}
	return setnxLock{l.rdb, key}, nil
}

type setnxLock struct {
	rdb *redis.Client
	key string
}

func (l setnxLock) Unlock(ctx context.Context) error { return l.rdb.Del(ctx, l.key).Err() }

// redsyncLocker is what go-co-op's redis locker does: a redsync mutex per
// run, one try, its expiry fixed.
type redsyncLocker struct {
	rs     *redsync.Redsync
	expiry time.Duration
}

func newRedsyncLocker(rdb *redis.Client, expiry time.Duration) redsyncLocker {
	return redsyncLocker{rs: redsync.New(goredis.NewPool(rdb)), expiry: expiry}
}

func (l redsyncLocker) Lock(ctx context.Context, key string) (gocron.Lock, error) {
	m := l.rs.NewMutex(key, redsync.WithTries(1), redsync.WithExpiry(l.expiry))
	if err := m.LockContext(ctx); err != nil {
		return nil, err
	}
	return redsyncLock{m}, nil
}

type redsyncLock struct{ m *redsync.Mutex }

func (l redsyncLock) Unlock(ctx context.Context) error {
	ok, err := l.m.UnlockContext(ctx)
	if err == nil && !ok {
		err = errBusy
	}
	return err
}
