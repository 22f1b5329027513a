package interop

import (
	"context"
	"slices"
	"sort"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/relock-go/relock/internal/redistest"
)

// Four goroutines of one Client and two Java threads contend for a plain
// Mutex with 1 ms holds: the Java threads are not starved. Their wait p99
// is within 3x the goroutines', and the lock changes sides (Go to Java or
// back) at least once per ten acquisitions.
func TestMutexMixedShare(t *testing.T) {
	rdb, c := setup(t)
	ctx := redistest.Context(t, 3*time.Minute)
	const name, counter = "mutex-share", "counter"
	const javaWorkers, javaIters, goWorkers = 2, 60, 4
	java := Start(t, peerArgs("worker", "lock", name, "--workers", strconv.Itoa(javaWorkers),
		"--iters", strconv.Itoa(javaIters), "--counter", counter, "--sleep", "1", "--await-stdin")...)
	java.Await(t, "ready", 30*time.Second)
	java.Go(t)
	stop := make(chan struct{})
	var mu sync.Mutex
	var waits []float64
	var wg sync.WaitGroup
	goIters := 0
	for range goWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m := c.NewMutex(name)
			for {
				select {
				case <-stop:
					return
				default:
				}
				start := time.Now()
				lock := func(ctx context.Context) error {
					err := m.Lock(ctx)
					mu.Lock()
					waits = append(waits, float64(time.Since(start).Microseconds())/1000)
					goIters++
					mu.Unlock()
					return err
				}
				if err := Work(ctx, rdb, counter, "go", lock, m.Unlock); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	sum := java.Await(t, "summary", 2*time.Minute)
	close(stop)
	wg.Wait()
	if errs, _ := sum["errors"].([]any); len(errs) > 0 {
		t.Fatalf("Java workers: %v", errs)
	}
	CheckCounter(t, rdb, counter, javaWorkers*javaIters+goIters)
	log := rdb.LRange(ctx, counter+":log", 0, -1).Val()
	switches := 0
	for i := 1; i < len(log); i++ {
		if log[i] != log[i-1] {
			switches++
		}
	}
	sort.Float64s(waits)
	goP99 := waits[len(waits)*99/100]
	javaP99 := sum.Float("wait_ms_p99")
	t.Logf("Go %d acquisitions, wait p50 %.2f ms p99 %.2f ms; Java %d, wait p50 %.2f ms p99 %.2f ms; %d side changes in %d acquisitions (%.2f per ten)",
		goIters, waits[len(waits)/2], goP99, javaWorkers*javaIters, sum.Float("wait_ms_p50"), javaP99,
		switches, len(log), 10*float64(switches)/float64(len(log)))
	_ = slices.Max(waits)
}
