package interop

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/rlock"
	"github.com/relock-go/relock/test/testkit"
)

// shareRound is one measurement of Go and Java contending for a plain
// Mutex.
type shareRound struct {
	goAcq, javaAcq    int
	goP99, javaP99    float64 // wait p99, ms
	switches, entries int     // side changes in the counter's log, and its length
}

func (r shareRound) perTen() float64 { return 10 * float64(r.switches) / float64(r.entries) }

// fair reports whether Java had its share: a wait p99 within 3x Go's, and
// at least one side change per ten acquisitions.
func (r shareRound) fair() bool { return r.javaP99 <= 3*r.goP99 && r.perTen() >= 1 }

func (r shareRound) String() string {
	return fmt.Sprintf("Go %d acquisitions, wait p99 %.1f ms; Java %d, wait p99 %.1f ms (%.1fx Go's); %.2f side changes per ten acquisitions",
		r.goAcq, r.goP99, r.javaAcq, r.javaP99, r.javaP99/r.goP99, r.perTen())
}

// Four goroutines of one Client and two Java threads contend for a plain
// Mutex with 1 ms holds: the Java threads are not starved. Their wait p99
// is within 3x the goroutines', and the lock changes sides (Go to Java or
// back) at least once per ten acquisitions. A round is 120 Java
// acquisitions against as many Go ones as fit meanwhile; up to three
// rounds are measured, and one that meets both bounds passes. If none
// does, the Java threads contend alone for a round: when their p99 there
// is already beyond the bound, the JVM is too slow on this machine for the
// turn-taking to be judged, and the test says so and skips.
func TestMutexMixedShare(t *testing.T) {
	rdb, c := setup(t)
	var rounds []shareRound
	for i := range 3 {
		r := mixedRound(t, rdb, c, fmt.Sprintf("mutex-share-%d", i), 4)
		t.Logf("round %d: %v", i+1, r)
		if r.fair() {
			return
		}
		rounds = append(rounds, r)
	}
	alone := mixedRound(t, rdb, c, "mutex-share-java-alone", 0)
	t.Logf("Java alone: wait p99 %.1f ms", alone.javaP99)
	best := rounds[0]
	for _, r := range rounds {
		best.goP99 = max(best.goP99, r.goP99)
	}
	if alone.javaP99 > 3*best.goP99 {
		t.Skipf("the JVM is too slow on this machine to judge the turn-taking: two Java threads alone wait %.1f ms p99, beyond 3x Go's p99 in the mixed rounds (%.1f ms)", alone.javaP99, best.goP99)
	}
	t.Fatalf("Java did not get its share in %d rounds (Java alone waits %.1f ms p99): %v", len(rounds), alone.javaP99, rounds)
}

// mixedRound runs two Java threads, 60 acquisitions each, against
// goroutines goroutines of c, on the lock name, and measures the round.
func mixedRound(t *testing.T, rdb *redis.Client, c *rlock.Client, name string, goroutines int) shareRound {
	t.Helper()
	ctx := testkit.Ctx(t, 3*time.Minute)
	counter := name + ":counter"
	const javaWorkers, javaIters = 2, 60
	java := Start(t, peerArgs(rdb, "worker", "lock", name, "--workers", strconv.Itoa(javaWorkers),
		"--iters", strconv.Itoa(javaIters), "--counter", counter, "--sleep", "1", "--await-stdin")...)
	java.Await(t, "ready", time.Minute)
	java.Go(t)
	stop := make(chan struct{})
	var mu sync.Mutex
	var waits []float64
	var wg sync.WaitGroup
	for range goroutines {
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
	CheckCounter(t, rdb, counter, javaWorkers*javaIters+len(waits))
	log := rdb.LRange(ctx, counter+":log", 0, -1).Val()
	r := shareRound{goAcq: len(waits), javaAcq: javaWorkers * javaIters, javaP99: sum.Float("wait_ms_p99"), entries: len(log)}
	for i := 1; i < len(log); i++ {
		if log[i] != log[i-1] {
			r.switches++
		}
	}
	if len(waits) > 0 {
		sort.Float64s(waits)
		r.goP99 = waits[len(waits)*99/100]
	}
	return r
}
