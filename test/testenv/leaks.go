package testenv

import (
	"fmt"
	"io"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// Grace is how long a leak check waits for goroutines to return before it
// reports them: a goroutine told to stop may need a moment, more of one on
// a loaded machine than goleak's own retries (about half a second) allow.
const Grace = 2 * time.Second

// Leaks returns nil once no goroutine is running but the caller's, the
// testing framework's and those that opts ignore (goleak.IgnoreCurrent,
// for one), or, after grace, an error that lists what is left.
func Leaks(grace time.Duration, opts ...goleak.Option) error {
	deadline := time.Now().Add(grace)
	for {
		err := goleak.Find(opts...)
		if err == nil || !time.Now().Before(deadline) {
			return err
		}
	}
}

func mainWith(run func() int, w io.Writer, grace time.Duration, opts ...goleak.Option) int {
	code := run()
	if code != 0 {
		return code
	}
	if err := Leaks(grace, opts...); err != nil {
		fmt.Fprintf(w, "goleak: goroutines still running %v after the tests: %v\n", grace, err)
		return 1
	}
	return code
}

// CheckLeaks fails tb if goroutines that did not exist when CheckLeaks was
// called are still running Grace after tb ends. Call it first in the test:
// it checks in a cleanup, and cleanups run last-in first-out, so the check
// comes after the test's other cleanups (closing Clients, proxies,
// connections) have run.
//
// It cannot tell whose goroutines it sees: do not use it in a test that
// runs in parallel with others (t.Parallel).
func CheckLeaks(tb testing.TB) { checkLeaksWith(tb, Grace) }

func checkLeaksWith(tb testing.TB, grace time.Duration) {
	tb.Helper()
	before := goleak.IgnoreCurrent()
	tb.Cleanup(func() {
		if err := Leaks(grace, before); err != nil {
			tb.Errorf("goleak: goroutines still running %v after the test: %v", grace, err)
		}
	})
}
