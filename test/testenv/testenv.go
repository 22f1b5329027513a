// Package testenv is what every test package of the module starts with,
// and how a test that needs something the machine lacks says so.
//
// Every test package's TestMain runs its tests through Main:
//
//	func TestMain(m *testing.M) { os.Exit(testenv.Main(m.Run)) }
//
// or, around another runner such as redistest.Main,
//
//	func TestMain(m *testing.M) {
//		os.Exit(testenv.Main(func() int { return redistest.Main(m, &srv) }))
//	}
//
// Main silences go-redis's own logger, whose lines (a refused dial of a
// server a test stopped on purpose, a pool's reconnection) would otherwise
// be mixed into the tests' output, then runs the tests and checks, with
// go.uber.org/goleak, that no goroutine outlives them: a package whose
// tests leave one running fails. CheckLeaks does the same for one test.
//
// A test that needs a program or file the machine may not have (a real
// Redisson peer and Java, a headless Chromium) calls Unavailable when it is
// missing. Outside CI the test skips, and the skip is loud: go test shows
// skips only with -v, so Unavailable also appends one line, naming the test,
// what is missing and how to run it, to the file named by $RELOCK_SKIP_LOG,
// which make test sums up at its end. Under CI (CI set, and neither "false"
// nor "0") the test fails instead: CI installs what the tests need and must
// run them all.
//
// Like every package under test/, it exists for relock's own tests and
// makes no compatibility promise: its API changes as the tests need.
package testenv

import (
	"context"
	"fmt"
	"go.uber.org/goleak"
	"os"
	"testing"

	"github.com/redis/go-redis/v9"
)

// SkipLogEnv names the environment variable that holds the file to which
// Unavailable appends a line for every test it skips.
const SkipLogEnv = "RELOCK_SKIP_LOG"

// Main silences go-redis's logger, runs the tests with run (m.Run, or a
// wrapper of it) and returns its exit code. When the tests passed, it then
// fails the package (exit code 1, the leaked stacks on stderr) if
// goroutines other than the caller's and those opts ignore are still
// running after Grace (see Leaks). After failed tests it reports nothing
// more: their leftovers are usually a consequence of the failure.
func Main(run func() int, opts ...goleak.Option) int {
	redis.SetLogger(silent{})
	return mainWith(run, os.Stderr, Grace, opts...)
}

// SentinelWatch ignores go-redis's Sentinel watcher, a FailoverClient's
// subscription to +switch-master and its channel's goroutines: go-redis
// (v9.22) starts a new one when a connection being dialled asks for the
// master while the client closes (setSentinel after closeSentinel), and
// nothing ever stops that one. relock reads its subscriptions with
// ReceiveTimeout and starts no such channel.
var SentinelWatch = []goleak.Option{
	goleak.IgnoreAnyFunction("github.com/redis/go-redis/v9.(*sentinelFailover).listen"),
	goleak.IgnoreAnyFunction("github.com/redis/go-redis/v9.(*channel).initHealthCheck.func1"),
	goleak.IgnoreAnyFunction("github.com/redis/go-redis/v9.(*channel).initMsgChan.func1"),
}

// silent drops go-redis's log lines: a test that makes go-redis fail says
// itself what it expected.
type silent struct{}

// Printf drops a log line.
func (silent) Printf(context.Context, string, ...any) {}

// InCI reports whether the tests run under CI: the CI variable is set, and
// neither "false" nor "0".
func InCI() bool {
	v := os.Getenv("CI")
	return v != "" && v != "false" && v != "0"
}

// Unavailable ends tb, which cannot run because what it needs is missing
// (why: what is missing and how to install it). Under CI the test fails.
// Elsewhere it skips, and a line of why, how to run it (for example "make
// interop") and the test's name, separated by tabs, is appended to the file
// $RELOCK_SKIP_LOG names, when it names one.
func Unavailable(tb testing.TB, why, how string) {
	tb.Helper()
	if InCI() {
		tb.Fatalf("%s must run under CI: %s", tb.Name(), why)
		return
	}
	if path := os.Getenv(SkipLogEnv); path != "" {
		if f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644); err == nil {
			_, _ = fmt.Fprintf(f, "%s\t%s\t%s\n", why, how, tb.Name())
			_ = f.Close()
		}
	}
	tb.Skipf("skipping: %s (run it with %s)", why, how)
}
