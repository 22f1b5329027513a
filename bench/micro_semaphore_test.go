package bench

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/relock-go/relock/rlock"
)

// semaphore returns a semaphore of permits, made by c, under a name no
// other benchmark run uses.
func semaphore(b *testing.B, c *rlock.Client, name string, permits int) *rlock.Semaphore {
	b.Helper()
	s := c.NewSemaphore(name)
	if _, err := s.TrySetPermits(context.Background(), permits); err != nil {
		b.Fatal(err)
	}
	return s
}

// BenchmarkSemaphoreAcquireRelease is an uncontended Acquire of one permit
// followed by its Release: two round trips.
func BenchmarkSemaphoreAcquireRelease(b *testing.B) {
	s := semaphore(b, client(b), lockName(b), 1)
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if err := s.Acquire(ctx, 1); err != nil {
			b.Fatal(err)
		}
		if err := s.Release(ctx, 1); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkContendedSemaphore is one Acquire and Release of a permit of a
// semaphore of two, which eight goroutines over two Clients take in turn:
// most Acquire calls wait for a release.
func BenchmarkContendedSemaphore(b *testing.B) {
	name := lockName(b)
	clients := []*rlock.Client{client(b), client(b)}
	semaphore(b, clients[0], name, 2)
	ctx := context.Background()
	var left atomic.Int64
	left.Store(int64(b.N))
	var wg sync.WaitGroup
	b.ResetTimer()
	for i := range 8 {
		s := clients[i%len(clients)].NewSemaphore(name)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for left.Add(-1) >= 0 {
				if err := s.Acquire(ctx, 1); err != nil {
					b.Error(err)
					return
				}
				if err := s.Release(ctx, 1); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
}
