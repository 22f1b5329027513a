package strategy

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/bsm/redislock"
	"github.com/go-redsync/redsync/v4"
	"github.com/go-redsync/redsync/v4/redis/goredis/v9"
	"github.com/redis/go-redis/v9"
)

// RedsyncDefault is github.com/go-redsync/redsync/v4 with its default
// retries (32 tries, 50-250 ms apart); the wrapper calls LockContext again
// whenever the tries run out, until ctx ends.
func RedsyncDefault() Strategy {
	return Strategy{Name: "redsync", Family: "peer", Open: openRedsync()}
}

// RedsyncDelay is redsync with a constant retry delay d.
func RedsyncDelay(d time.Duration) Strategy {
	return Strategy{Name: "redsync-" + d.String(), Family: "peer", Open: openRedsync(redsync.WithRetryDelay(d))}
}

func openRedsync(opts ...redsync.Option) func(redis.UniversalClient) (Backend, error) {
	return func(rdb redis.UniversalClient) (Backend, error) {
		opts := append([]redsync.Option{redsync.WithExpiry(Lease)}, opts...)
		return redsyncBackend{rs: redsync.New(goredis.NewPool(rdb)), opts: opts}, nil
	}
}

type redsyncBackend struct {
	rs   *redsync.Redsync
	opts []redsync.Option
}

func (b redsyncBackend) NewLocker(name string) Locker {
	return redsyncLocker{b.rs.NewMutex(name, b.opts...)}
}
func (b redsyncBackend) Close() error { return nil }

type redsyncLocker struct{ m *redsync.Mutex }

func (l redsyncLocker) Lock(ctx context.Context) error {
	for {
		err := l.m.LockContext(ctx)
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		var taken *redsync.ErrTaken
		if !errors.Is(err, redsync.ErrFailed) && !errors.As(err, &taken) {
			return err
		}
	}
}

func (l redsyncLocker) Unlock(ctx context.Context) error {
	ok, err := l.m.UnlockContext(ctx)
	if err == nil && !ok {
		err = fmt.Errorf("redsync: unlock %s: not held", l.m.Name())
	}
	return err
}

// RedislockLinear is github.com/bsm/redislock retrying every d
// (LinearBackoff) until ctx ends.
func RedislockLinear(d time.Duration) Strategy {
	return Strategy{Name: "redislock-" + d.String(), Family: "peer", Open: func(rdb redis.UniversalClient) (Backend, error) {
		return redislockBackend{c: redislock.New(rdb), backoff: d}, nil
	}}
}

type redislockBackend struct {
	c       *redislock.Client
	backoff time.Duration
}

func (b redislockBackend) NewLocker(name string) Locker {
	return &redislockLocker{b: b, name: name}
}
func (b redislockBackend) Close() error { return nil }

type redislockLocker struct {
	b    redislockBackend
	name string
	held *redislock.Lock
}

func (l *redislockLocker) Lock(ctx context.Context) error {
	for {
		lk, err := l.b.c.Obtain(ctx, l.name, Lease, &redislock.Options{RetryStrategy: redislock.LinearBackoff(l.b.backoff)})
		if err == nil {
			l.held = lk
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if !errors.Is(err, redislock.ErrNotObtained) && !errors.Is(err, context.DeadlineExceeded) {
			return err
		}
	}
}

func (l *redislockLocker) Unlock(ctx context.Context) error {
	if l.held == nil {
		return fmt.Errorf("redislock: unlock %s: not held", l.name)
	}
	err := l.held.Release(ctx)
	l.held = nil
	return err
}
