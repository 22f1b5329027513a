package interop

import (
	"runtime"
	"sync"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/rlock"
	"github.com/relock-go/relock/test/redistest"
	"github.com/relock-go/relock/test/testkit/lockkit"
)

// setup starts a redis-server of the test's own, and returns a go-redis
// client of it and a Client on it, all closed when the test ends. Tests on
// servers of their own can run in parallel.
func setup(t *testing.T) (*redis.Client, *rlock.Client) {
	t.Helper()
	s, err := redistest.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	rdb := s.Client(t)
	return rdb, lockkit.NewClient(t, rdb)
}

// peerArgs are a peer's mode and flags on rdb's server.
func peerArgs(rdb *redis.Client, mode, kind, name string, more ...string) []string {
	return append([]string{mode, "--addr", rdb.Options().Addr, "--name", name, "--kind", kind}, more...)
}

// jvmStarts holds a token for each JVM that runTrials is starting, in all
// tests: a JVM's start is CPU work, and two at a time keep both cores busy.
var jvmStarts = make(chan struct{}, 2)

// quiet is held shared by each JVM start of runTrials, and exclusively by
// a batch of trials while it runs: trials whose peers must answer in time
// (a reconnect within a grace) do not run beside JVMs that take the CPU.
var quiet sync.RWMutex

// runTrials runs n trials, batchSize at a time (a trial mostly waits, for a
// slow link, a reconnect, a grace, so several overlap well, but each
// still needs a share of the CPU to be on time). For each batch it
// starts what every trial needs (its JVM) with start(tb, i), at most two
// at once, then runs the batch's trials together, trial(tb, i, p), each on
// its own goroutine, while no JVM of runTrials starts. A trial that fails
// fails t and ends alone; runTrials ends t after a batch in which any
// failed.
func runTrials[P any](t *testing.T, n, batchSize int, start func(tb testing.TB, i int) P, trial func(tb testing.TB, i int, p P)) {
	t.Helper()
	JarPath(t) // skips (or fails) here, on the test's goroutine
	for from := 0; from < n; from += batchSize {
		batch := make([]P, min(batchSize, n-from))
		each(t, len(batch), func(tb testing.TB, i int) {
			jvmStarts <- struct{}{}
			defer func() { <-jvmStarts }()
			quiet.RLock()
			defer quiet.RUnlock()
			batch[i] = start(tb, from+i)
		})
		func() {
			quiet.Lock()
			defer quiet.Unlock() // also when t ends
			each(t, len(batch), func(tb testing.TB, i int) { trial(tb, from+i, batch[i]) })
		}()
	}
}

// each runs f(tb, i) for i < n, each on a goroutine of its own with a
// trialTB of t, and ends t once all have returned if any failed.
func each(t *testing.T, n int, f func(tb testing.TB, i int)) {
	t.Helper()
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(trialTB{t}, i)
		}()
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
}

// trialTB is the testing.TB of a trial on a goroutine other than the
// test's: Fatal, Fatalf and FailNow fail the test and end the trial's
// goroutine alone (only the test's own goroutine may end the test), and
// Skip fails, as a trial cannot skip the test it belongs to.
type trialTB struct{ testing.TB }

func (tb trialTB) FailNow() {
	tb.TB.Fail()
	runtime.Goexit()
}

func (tb trialTB) Fatal(args ...any) {
	tb.TB.Helper()
	tb.TB.Error(args...)
	runtime.Goexit()
}

func (tb trialTB) Fatalf(format string, args ...any) {
	tb.TB.Helper()
	tb.TB.Errorf(format, args...)
	runtime.Goexit()
}

func (tb trialTB) SkipNow() { tb.FailNow() }

func (tb trialTB) Skip(args ...any) {
	tb.TB.Helper()
	tb.Fatal(append([]any{"skip in a trial:"}, args...)...)
}

func (tb trialTB) Skipf(format string, args ...any) {
	tb.TB.Helper()
	tb.Fatalf("skip in a trial: "+format, args...)
}
