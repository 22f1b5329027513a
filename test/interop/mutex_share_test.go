package interop

import (
	"context"
	"fmt"
	"slices"
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
	// goRuns are the runs of Go acquisitions in a row between two Java
	// ones in the counter's log, from Java's javaWarmUp-th acquisition on.
	goRuns []int
}

// javaWarmUp is how many acquisitions the Java threads make before their
// turns are judged: the first ones run the lock path of a cold JVM
// (classes loaded, code not yet compiled), which is slow however the
// turns are taken.
const javaWarmUp = 10

// maxGoRun bounds the 90th percentile of the Go runs of a fair round. The
// two Java threads wait for the lock nearly all the time (a thread locks
// again as soon as it has released), so a run of Go acquisitions is a
// stretch they waited through. Taking turns, a Client that sees other
// clients listen passes the lock to its own waiters at most twice before
// it publishes the release and steps aside: the runs are of a few
// acquisitions, a few times that when the JVM is slow to retry. Without
// turns, Java waits through runs of dozens.
const maxGoRun = 16

func (r shareRound) perTen() float64 { return 10 * float64(r.switches) / float64(r.entries) }

// runP90 is the 90th percentile of the Go runs (0 with none).
func (r shareRound) runP90() int {
	if len(r.goRuns) == 0 {
		return 0
	}
	runs := slices.Sorted(slices.Values(r.goRuns))
	return runs[len(runs)*9/10]
}

// fair reports whether Java had its turns: the runs of Go acquisitions it
// waited through are short (maxGoRun), and there were enough of them to
// judge.
func (r shareRound) fair() bool { return len(r.goRuns) >= 20 && r.runP90() <= maxGoRun }

func (r shareRound) String() string {
	return fmt.Sprintf("Go %d acquisitions, wait p99 %.1f ms; Java %d, wait p99 %.1f ms (%.1fx Go's); %.2f side changes per ten acquisitions; %d runs of Go acquisitions between Java's, p90 %d, longest %d",
		r.goAcq, r.goP99, r.javaAcq, r.javaP99, r.javaP99/r.goP99, r.perTen(), len(r.goRuns), r.runP90(), slices.Max(append([]int{0}, r.goRuns...)))
}

// Four goroutines of one Client and two Java threads contend for a plain
// Mutex with 1 ms holds: the Java threads are not starved. Once their
// JVM is warm (javaWarmUp), the runs of Go acquisitions between two Java
// ones, which the Java threads wait through, are short: their 90th
// percentile is at most maxGoRun. A round is 120 Java acquisitions, by
// threads that start once the JVM is ready, against as many Go ones as
// fit meanwhile; up to three rounds are measured, and one within the
// bound passes. The bound counts acquisitions, not milliseconds, so a
// slow JVM does not fail it: it only makes the Go runs a few times
// longer, where without the turn-taking they are dozens long.
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
	t.Fatalf("Java did not get its turns in %d rounds (a fair round has at least 20 runs of Go acquisitions between Java's, p90 at most %d): %v", len(rounds), maxGoRun, rounds)
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
	r.goRuns = goRuns(log, javaWarmUp)

	if len(waits) > 0 {
		sort.Float64s(waits)
		r.goP99 = waits[len(waits)*99/100]
	}
	return r
}

// goRuns returns the lengths of the runs of "go" entries between two
// "java" ones in log, from the warm-th "java" entry on.
func goRuns(log []string, warm int) []int {
	var runs []int
	seen, run := 0, 0
	for _, e := range log {
		if e != "java" {
			run++
			continue
		}
		if seen++; seen > warm && run > 0 {
			runs = append(runs, run)
		}
		run = 0
	}
	return runs
}
