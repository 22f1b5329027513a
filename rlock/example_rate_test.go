package rlock_test

import (
	"context"
	"fmt"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/rlock"
)

// A rate limiter of two calls a second, shared by every Client (and every
// Redisson client) of the name: the third call within the second is
// refused, and a TryWait that cannot have a permit within its wait
// reports false at once.
func ExampleRateLimiter() {
	mr, _ := miniredis.Run()
	defer mr.Close()
	rdb := redis.NewClient(&redis.Options{Addr: mr.Addr()})
	defer rdb.Close()
	locks, _ := rlock.New(rdb)
	defer locks.Close()

	ctx := context.Background()
	calls := locks.NewRateLimiter("payments:calls")
	set, _ := calls.TrySetRate(ctx, rlock.Rate{Limit: 2, Interval: time.Second}) // once, by anyone
	fmt.Println("rate set:", set)
	for range 3 {
		ok, _ := calls.Allow(ctx)
		fmt.Println("allowed:", ok)
	}
	ok, _ := calls.TryWait(ctx, 1, 10*time.Millisecond)
	fmt.Println("within 10ms:", ok)
	n, _ := calls.Available(ctx)
	r, _ := calls.Rate(ctx)
	fmt.Printf("available: %d of %d per %v\n", n, r.Limit, r.Interval)
	// Wait (or WaitN) would sleep until the first permit comes back, a
	// second after it was taken.

	// Output:
	// rate set: true
	// allowed: true
	// allowed: true
	// allowed: false
	// within 10ms: false
	// available: 0 of 2 per 1s
}
