package rlock

import (
	"sync"
	"testing"
	"time"

	"github.com/relock-go/relock/internal/keys"
	"github.com/relock-go/relock/scripts"
	"github.com/relock-go/relock/test/testkit"
)

// Acquisitions and releases of a semaphore, and count-downs of a latch,
// leave one record key per Client and object, whose fields are as many as
// the requests that were in flight at once. (On miniredis, where nothing
// expires unless the test moves the clock, a record per request would
// stay.)
func TestCountingRequestsLeaveOneRecordKeyPerClient(t *testing.T) {
	mr, rdb := testkit.Miniredis(t)
	ctx := ctxT(t)
	c := newClient(t, rdb)
	s := c.NewSemaphore("sem:lean")
	if ok, err := s.TrySetPermits(ctx, 2); !ok || err != nil {
		t.Fatalf("TrySetPermits = %v, %v", ok, err)
	}
	const goroutines, rounds = 4, 50
	var wg sync.WaitGroup
	for range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range rounds {
				if err := s.Acquire(ctx, 1); err != nil {
					t.Error(err)
					return
				}
				if err := s.Release(ctx, 1); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	l := c.NewCountDownLatch("latch:lean")
	if _, err := l.TrySetCount(ctx, 10); err != nil {
		t.Fatal(err)
	}
	for range 5 {
		if err := l.CountDown(ctx); err != nil {
			t.Fatal(err)
		}
	}
	records := []string{keys.Records("sem:lean", c.ID()), keys.Records("latch:lean", c.ID())}
	want := []string{"latch:lean", "sem:lean", records[0], records[1]}
	if got := mr.Keys(); len(got) != len(want) {
		t.Fatalf("keys %q; want %q", got, want)
	}
	fields, _ := mr.HKeys(records[0])
	if n := len(fields); n < 1 || n > goroutines {
		t.Fatalf("%d records of the semaphore; want 1 to %d, one per request in flight at once", n, goroutines)
	}
	if ttl := mr.TTL(records[0]); ttl <= 0 || ttl > c.recordTTL {
		t.Fatalf("records' TTL %v; want up to %v", ttl, c.recordTTL)
	}
	if n, _ := s.AvailablePermits(ctx); n != 2 {
		t.Fatalf("%d permits available; want 2", n)
	}
}

// A late copy of a request that ended (its slot recorded a later request
// since) changes nothing, and a resend of the latest is answered from its
// record.
func TestLateCopyOfEndedRequestChangesNothing(t *testing.T) {
	ctx := ctxT(t)
	c := newClient(t, newRedis(t))
	s := scripts.NewSemaphore("sem:late")
	first := scripts.Request{Client: c.ID(), Field: 0, Seq: 1, TTL: time.Minute}
	second := first
	second.Seq = 2
	for i, r := range []scripts.Request{first, second, first, second} {
		v, _, err := s.Release(ctx, c.rdb, 1, c.publishCommand(), r, false)
		if v != int64(min(i+1, 2)) || err != nil {
			t.Fatalf("run %d (seq %d): Release = %d, %v; want %d", i+1, r.Seq, v, err, min(i+1, 2))
		}
	}
	if v, err := s.Acquire(ctx, c.rdb, 1, first); v != -1 || err != nil {
		t.Fatalf("late Acquire = %d, %v; want -1 (nothing taken)", v, err)
	}
	if n, _ := c.NewSemaphore("sem:late").AvailablePermits(ctx); n != 2 {
		t.Fatalf("%d available; want 2", n)
	}
}
