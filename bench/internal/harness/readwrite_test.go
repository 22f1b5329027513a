package harness

import (
	"context"
	"testing"
	"time"
)

// TestReadWrite runs the readwrite scenario briefly on a real
// redis-server: both kinds must keep exclusion, fail nothing and make
// reads and writes, and RWMutex readers must have overlapped.
func TestReadWrite(t *testing.T) {
	addr, stop, err := Redis()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = stop() })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r, err := ReadWrite{
		Addr: addr, Goroutines: 8, Clients: 3, Hold: time.Millisecond, ReadShare: 0.9,
		Warmup: 50 * time.Millisecond, Duration: 600 * time.Millisecond,
	}.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []ReadWriteKind{r.RWMutex, r.Mutex} {
		if k.Violations != 0 || k.Errors != 0 {
			t.Errorf("%s: %d violations, %d errors (%s); want none", k.Lock, k.Violations, k.Errors, k.FirstError)
		}
		if k.Reads == 0 || k.Writes == 0 || k.Operations != k.Reads+k.Writes {
			t.Errorf("%s: %d operations, %d reads, %d writes; want reads and writes", k.Lock, k.Operations, k.Reads, k.Writes)
		}
		if k.ReadWait.N == 0 || k.WriteWait.N == 0 {
			t.Errorf("%s: %d read waits, %d write waits recorded", k.Lock, k.ReadWait.N, k.WriteWait.N)
		}
	}
	if r.RWMutex.MaxReaders < 2 {
		t.Errorf("RWMutex: at most %d readers inside at once; want overlapping reads", r.RWMutex.MaxReaders)
	}
	if r.Mutex.MaxReaders != 1 {
		t.Errorf("Mutex: %d readers inside at once; want 1", r.Mutex.MaxReaders)
	}
	if r.Speedup <= 0 {
		t.Errorf("RWMutex / Mutex throughput %.2f; want > 0", r.Speedup)
	}
}
