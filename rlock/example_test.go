package rlock_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/rlock"
)

func Example() {
	mr, _ := miniredis.Run() // any Redis: single node, Sentinel or Cluster
	defer mr.Close()
	rdb := redis.NewClient(&redis.Options{Addr: mr.Addr()})
	defer rdb.Close()

	locks, err := rlock.New(rdb)
	if err != nil {
		panic(err)
	}
	defer locks.Close()

	ctx := context.Background()
	m := locks.NewMutex("orders:42")
	if err := m.Lock(ctx); err != nil {
		panic(err)
	}
	m.Reenter(ctx) // re-entry is explicit: a second Lock would wait
	n, _ := m.HoldCount(ctx)
	fmt.Println("holds:", n)

	other := locks.NewMutex("orders:42") // another owner
	ok, _ := other.TryLock(ctx, 0, 0)
	fmt.Println("other owner got it:", ok)

	m.Unlock(ctx)
	m.Unlock(ctx)
	err = m.Unlock(ctx)
	fmt.Println("extra unlock:", errors.Is(err, rlock.ErrNotHeld))
	// Output:
	// holds: 2
	// other owner got it: false
	// extra unlock: true
}

// store is a resource that accepts a write only with a fencing token at
// least as high as any it has seen.
type store struct {
	mu      sync.Mutex
	highest int64
	value   string
}

func (s *store) write(token int64, value string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if token < s.highest {
		return fmt.Errorf("token %d is stale: %d was seen", token, s.highest)
	}
	s.highest, s.value = token, value
	return nil
}

// A holder that stalled past its lease still believes it holds the lock;
// its fencing token tells the storage otherwise.
func ExampleFencedMutex() {
	mr, _ := miniredis.Run()
	defer mr.Close()
	rdb := redis.NewClient(&redis.Options{Addr: mr.Addr()})
	defer rdb.Close()
	locks, _ := rlock.New(rdb)
	defer locks.Close()
	ctx := context.Background()
	var db store

	slow := locks.NewFencedMutex("invoice:7")
	token1, _ := slow.LockWithLease(ctx, 10*time.Second)

	mr.FastForward(11 * time.Second) // slow stalls; its lease runs out

	fast := locks.NewFencedMutex("invoice:7")
	token2, _ := fast.LockWithLease(ctx, 10*time.Second)
	fmt.Println("fast writes:", db.write(token2, "paid"))
	fast.Unlock(ctx)

	fmt.Println("slow writes:", db.write(token1, "draft"))
	fmt.Println("stored:", db.value)
	// Output:
	// fast writes: <nil>
	// slow writes: token 1 is stale: 2 was seen
	// stored: paid
}

// Readers share the lock, a writer excludes them, and a writer may keep
// reading after it stops writing.
func ExampleRWMutex() {
	mr, _ := miniredis.Run()
	defer mr.Close()
	rdb := redis.NewClient(&redis.Options{Addr: mr.Addr()})
	defer rdb.Close()
	locks, _ := rlock.New(rdb)
	defer locks.Close()
	ctx := context.Background()

	a, b := locks.NewRWMutex("config"), locks.NewRWMutex("config")
	a.RLock(ctx)
	b.RLock(ctx)
	mode, _ := a.Mode(ctx)
	fmt.Println("two readers, mode:", mode)

	w := locks.NewRWMutex("config")
	ok, _ := w.TryLock(ctx, 0, 0)
	fmt.Println("writer while read:", ok)
	a.RUnlock(ctx)
	b.RUnlock(ctx)

	w.Lock(ctx)
	w.RReenter(ctx) // a writer may read too
	w.Unlock(ctx)
	mode, _ = w.Mode(ctx)
	fmt.Println("after the downgrade:", mode)

	ok, _ = w.TryLock(ctx, 0, 0) // the handle reads: as sync.RWMutex, no writer
	fmt.Println("write while the handle reads:", ok)
	w.RUnlock(ctx)
	// Output:
	// two readers, mode: read
	// writer while read: false
	// after the downgrade: read
	// write while the handle reads: false
}
