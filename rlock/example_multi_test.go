package rlock_test

import (
	"context"
	"fmt"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/rlock"
)

// A transfer between two accounts kept on two Redis servers takes both
// account locks, or neither.
func ExampleNewMultiLock() {
	east, _ := miniredis.Run()
	defer east.Close()
	west, _ := miniredis.Run()
	defer west.Close()
	rdbEast := redis.NewClient(&redis.Options{Addr: east.Addr()})
	defer rdbEast.Close()
	rdbWest := redis.NewClient(&redis.Options{Addr: west.Addr()})
	defer rdbWest.Close()
	eastLocks, _ := rlock.New(rdbEast)
	defer eastLocks.Close()
	westLocks, _ := rlock.New(rdbWest)
	defer westLocks.Close()
	ctx := context.Background()

	alice := eastLocks.NewMutex("account:alice")
	bob := westLocks.NewMutex("account:bob")
	transfer := rlock.NewMultiLock(alice, bob)

	auditor := westLocks.NewMutex("account:bob") // another owner
	auditor.Lock(ctx)
	ok, _ := transfer.TryLock(ctx, 50*time.Millisecond, 0)
	aliceHeld, _ := alice.IsHeld(ctx)
	fmt.Println("transfer while bob is audited:", ok, "- alice held:", aliceHeld)

	auditor.Unlock(ctx)
	if err := transfer.Lock(ctx); err != nil {
		panic(err)
	}
	aliceHeld, _ = alice.IsHeld(ctx)
	bobHeld, _ := bob.IsHeld(ctx)
	fmt.Println("transfer: alice held:", aliceHeld, "- bob held:", bobHeld)
	fmt.Println("unlock:", transfer.Unlock(ctx))
	// Output:
	// transfer while bob is audited: false - alice held: false
	// transfer: alice held: true - bob held: true
	// unlock: <nil>
}

// A RedLock over three independent masters is held with a majority of
// them, here while one master is down.
func ExampleNewRedLock() {
	var members []rlock.Member
	for i := range 3 {
		mr, _ := miniredis.Run()
		defer mr.Close()
		// Short timeouts and no retries: a master that is down must not
		// hold up the others.
		rdb := redis.NewClient(&redis.Options{Addr: mr.Addr(), MaxRetries: -1, DialerRetries: 1,
			DialTimeout: 100 * time.Millisecond, ReadTimeout: 100 * time.Millisecond})
		defer rdb.Close()
		locks, _ := rlock.New(rdb)
		defer locks.Close()
		members = append(members, locks.NewMutex("jobs:nightly"))
		if i == 2 {
			mr.Close() // this master is down
		}
	}
	ctx := context.Background()

	l := rlock.NewRedLock(members...)
	ok, err := l.TryLock(ctx, time.Second, 0)
	fmt.Println("held:", ok, err)
	for _, m := range members[:2] {
		held, _ := m.(*rlock.Mutex).IsHeld(ctx)
		fmt.Println(m.Name(), "held on a live master:", held)
	}
	fmt.Println("unlock:", l.Unlock(ctx))
	// Output:
	// held: true <nil>
	// jobs:nightly held on a live master: true
	// jobs:nightly held on a live master: true
	// unlock: <nil>
}
