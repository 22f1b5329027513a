package bench

import (
	"context"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bsm/redislock"
	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/bench/internal/harness"
	"github.com/relock-go/relock/rlock"
	"github.com/relock-go/relock/test/testenv"
)

var (
	srvOnce sync.Once
	srvAddr string
	srvStop func() error
	srvErr  error
)

// TestMain stops the benchmarks' Redis server, if one was started, and
// fails the package if a goroutine of the module outlives its tests.
func TestMain(m *testing.M) {
	os.Exit(testenv.Main(func() int {
		code := m.Run()
		if srvStop != nil {
			_ = srvStop()
		}
		return code
	}))
}

// server returns the address of the benchmarks' Redis server, started on
// first use.
func server(b *testing.B) string {
	b.Helper()
	srvOnce.Do(func() { srvAddr, srvStop, srvErr = harness.Redis() })
	if srvErr != nil {
		b.Fatal(srvErr)
	}
	return srvAddr
}

// client returns a relock Client on its own go-redis client, closed when
// the benchmark ends.
func client(b *testing.B, opts ...rlock.Option) *rlock.Client {
	b.Helper()
	rdb := redis.NewClient(&redis.Options{Addr: server(b)})
	c, err := rlock.New(rdb, opts...)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		_ = c.Close()
		_ = rdb.Close()
	})
	return c
}

// lockName is a lock name no other benchmark run uses.
func lockName(b *testing.B) string {
	return fmt.Sprintf("bench:micro:%s:%d", b.Name(), time.Now().UnixNano())
}

// BenchmarkLockUnlock is an uncontended Lock followed by Unlock: two
// round trips.
func BenchmarkLockUnlock(b *testing.B) { lockUnlock(b, client(b)) }

// lockUnlock locks and unlocks a Mutex of c in the benchmark's loop.
func lockUnlock(b *testing.B, c *rlock.Client) {
	m := c.NewMutex(lockName(b))
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if err := m.Lock(ctx); err != nil {
			b.Fatal(err)
		}
		if err := m.Unlock(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLockUnlockObserved is BenchmarkLockUnlock without an observer
// and with one that counts every event, in one run: what observing costs.
func BenchmarkLockUnlockObserved(b *testing.B) {
	var counts [16]atomic.Int64
	counting := rlock.ObserverFunc(func(e rlock.Event) { counts[e.Type].Add(1) })
	for _, bc := range []struct {
		name string
		opts []rlock.Option
	}{{"none", nil}, {"counting", []rlock.Option{rlock.WithObserver(counting)}}} {
		b.Run(bc.name, func(b *testing.B) {
			lockUnlock(b, client(b, bc.opts...))
			if bc.opts != nil && counts[rlock.EventAcquired].Load() == 0 {
				b.Fatal("the counting observer saw no acquisition")
			}
		})
	}
}

// BenchmarkRedislockObtainRelease is the same cycle with
// github.com/bsm/redislock, for comparison.
func BenchmarkRedislockObtainRelease(b *testing.B) {
	rdb := redis.NewClient(&redis.Options{Addr: server(b)})
	defer rdb.Close()
	c := redislock.New(rdb)
	name := lockName(b)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		l, err := c.Obtain(ctx, name, 30*time.Second, nil)
		if err != nil {
			b.Fatal(err)
		}
		if err := l.Release(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReentrantLock re-enters a held lock and releases the inner hold.
func BenchmarkReentrantLock(b *testing.B) {
	m := client(b).NewMutex(lockName(b))
	ctx := context.Background()
	if err := m.Lock(ctx); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := m.Reenter(ctx); err != nil {
			b.Fatal(err)
		}
		if err := m.Unlock(ctx); err != nil {
			b.Fatal(err)
		}
	}
	if err := m.Unlock(ctx); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkTryLockHeld is a single attempt (TryLock with wait 0) on a lock
// another owner holds.
func BenchmarkTryLockHeld(b *testing.B) {
	c := client(b)
	name := lockName(b)
	ctx := context.Background()
	holder := c.NewMutex(name)
	if err := holder.Lock(ctx); err != nil {
		b.Fatal(err)
	}
	defer holder.Unlock(ctx)
	m := client(b).NewMutex(name)
	b.ReportAllocs()
	for b.Loop() {
		ok, err := m.TryLock(ctx, 0, 0)
		if err != nil || ok {
			b.Fatalf("TryLock on a held lock = %v, %v", ok, err)
		}
	}
}

// BenchmarkUnlockWithWaiters locks and unlocks while 8 waiters on two
// other Clients contend for the same lock; ns/op is the whole cycle and
// unlock-ns/op the Unlock alone, which publishes the release.
func BenchmarkUnlockWithWaiters(b *testing.B) {
	name := lockName(b)
	ctx, cancel := context.WithCancel(context.Background())
	wait := contend(8, []*rlock.Client{client(b), client(b)}, name, func(m *rlock.Mutex) {
		for m.Lock(ctx) == nil {
			time.Sleep(100 * time.Microsecond)
			_ = m.Unlock(context.Background())
		}
	})
	defer func() { cancel(); wait() }()

	m := client(b).NewMutex(name)
	bg := context.Background()
	var unlock time.Duration
	b.ReportAllocs()
	for b.Loop() {
		if err := m.Lock(bg); err != nil {
			b.Fatal(err)
		}
		t := time.Now()
		if err := m.Unlock(bg); err != nil {
			b.Fatal(err)
		}
		unlock += time.Since(t)
	}
	b.ReportMetric(float64(unlock.Nanoseconds())/float64(b.N), "unlock-ns/op")
}

// BenchmarkContendedHandoff is one acquisition of a lock that four
// goroutines over two Clients take in turn, each unlocking right after it
// locks: nearly every Lock waits and is handed the lock, within its Client
// or by a message from the other. Its allocs/op are the allocations of one
// hand-off, wherever in the process they are made.
func BenchmarkContendedHandoff(b *testing.B) {
	name := lockName(b)
	clients := []*rlock.Client{client(b), client(b)}
	ctx := context.Background()
	var left atomic.Int64
	left.Store(int64(b.N))
	b.ReportAllocs()
	b.ResetTimer()
	contend(4, clients, name, func(m *rlock.Mutex) {
		for left.Add(-1) >= 0 {
			if err := m.Lock(ctx); err != nil {
				b.Error(err)
				return
			}
			if err := m.Unlock(ctx); err != nil {
				b.Error(err)
				return
			}
		}
	})()
}

// contend starts n goroutines, each running loop with its own Mutex of the
// lock called name, made by clients in turn; the returned func waits until
// every loop has returned.
func contend(n int, clients []*rlock.Client, name string, loop func(*rlock.Mutex)) (wait func()) {
	var wg sync.WaitGroup
	for i := range n {
		m := clients[i%len(clients)].NewMutex(name)
		wg.Add(1)
		go func() {
			defer wg.Done()
			loop(m)
		}()
	}
	return wg.Wait
}
