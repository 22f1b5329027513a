package rlock

import (
	"context"
	_ "embed"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/internal/keys"
)

var (
	//go:embed testdata/fair_redisson_acquire.lua
	redissonFairAcquireSrc string
	//go:embed testdata/fair_redisson_release.lua
	redissonFairReleaseSrc string

	redissonFairAcquire = redis.NewScript(redissonFairAcquireSrc)
	redissonFairRelease = redis.NewScript(redissonFairReleaseSrc)
)

// redissonFairWaiter is one owner of a fair lock running Redisson's
// RFairLock protocol with raw scripts and its own subscription: a Java
// service, as far as Redis can tell.
type redissonFairWaiter struct {
	rdb   *redis.Client
	name  string
	owner string
	wait  time.Duration
	lease time.Duration
}

func (r *redissonFairWaiter) keys() []string {
	return []string{r.name, keys.Queue(r.name), keys.Timeout(r.name)}
}

// attempt runs the acquire script once; it returns 0 when the lock is held,
// else how long Redisson would sleep.
func (r *redissonFairWaiter) attempt(ctx context.Context) (time.Duration, error) {
	ms, err := redissonFairAcquire.Run(ctx, r.rdb, r.keys(), r.lease.Milliseconds(), r.owner,
		r.wait.Milliseconds(), time.Now().UnixMilli()).Int64()
	if errors.Is(err, redis.Nil) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	return max(time.Duration(ms)*time.Millisecond, time.Millisecond), nil
}

// lock subscribes to the owner's channel, then attempts until it holds the
// lock, sleeping on the channel between attempts. queued is closed once
// the first attempt has run. It reports whether the final wake-up was a
// message on the owner's channel.
func (r *redissonFairWaiter) lock(ctx context.Context, queued chan<- struct{}) (bool, error) {
	ps := r.rdb.Subscribe(ctx, keys.WaiterChannel(r.name, r.owner))
	defer ps.Close()
	if _, err := ps.Receive(ctx); err != nil { // the confirmation
		return false, err
	}
	msgs := ps.Channel()
	woken := false
	for first := true; ; first = false {
		sleep, err := r.attempt(ctx)
		if first {
			close(queued)
		}
		if err != nil || sleep == 0 {
			return woken, err
		}
		select {
		case <-msgs:
			woken = true
		case <-time.After(sleep):
			woken = false
		case <-ctx.Done():
			return false, ctx.Err()
		}
	}
}

func (r *redissonFairWaiter) unlock(ctx context.Context) error {
	n, err := redissonFairRelease.Run(ctx, r.rdb, append(r.keys(), keys.Channel(r.name)),
		keys.UnlockMessage, r.lease.Milliseconds(), r.owner, time.Now().UnixMilli()).Int64()
	if errors.Is(err, redis.Nil) || n != 1 {
		return errors.New("redisson unlock: not held")
	}
	return err
}

// TestFairMutexInteropWithRedissonWaiters queues Redisson-protocol waiters
// and relock waiters alternately in one queue behind a relock holder: they
// are served in arrival order, each woken on its own channel. Both sides
// use a 10s wait timeout and 30s leases, so a missed wake-up would show as
// a stall of seconds.
func TestFairMutexInteropWithRedissonWaiters(t *testing.T) {
	const wait = 10 * time.Second
	c, rdb := fairClient(t, WithFairWaitTimeout(wait))
	ctx := context.Background()
	const name = "fair-interop"
	holder := c.NewFairMutex(name)
	if err := holder.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	var (
		mu      sync.Mutex
		order   []string
		arrival []string
		wg      sync.WaitGroup
	)
	granted := func(owner string) {
		mu.Lock()
		order = append(order, owner)
		mu.Unlock()
	}
	for i := range 6 {
		if i%2 == 0 {
			r := &redissonFairWaiter{rdb: rdb, name: name, owner: "java-client:" + string(rune('a'+i)), wait: wait, lease: 30 * time.Second}
			arrival = append(arrival, r.owner)
			queued := make(chan struct{})
			wg.Add(1)
			go func() {
				defer wg.Done()
				woken, err := r.lock(ctx, queued)
				if err != nil {
					t.Error(err)
					return
				}
				if !woken {
					t.Errorf("Redisson waiter %s got the lock without a message on its channel", r.owner)
				}
				granted(r.owner)
				if err := r.unlock(ctx); err != nil {
					t.Error(err)
				}
			}()
			<-queued
		} else {
			f := c.NewFairMutex(name)
			arrival = append(arrival, f.Owner())
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := f.Lock(ctx); err != nil {
					t.Error(err)
					return
				}
				granted(f.Owner())
				if err := f.Unlock(ctx); err != nil {
					t.Error(err)
				}
			}()
		}
		awaitQueue(t, rdb, name, arrival...)
	}
	start := time.Now()
	mustUnlock(t, holder)
	wg.Wait()
	if !slices.Equal(order, arrival) {
		t.Fatalf("grants %v, arrivals %v", order, arrival)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("6 hand-offs took %v: a wake-up was missed", d)
	}
	assertNoFairKeys(t, rdb, name)
}
