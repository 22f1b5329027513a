// Package leakcheck fails tests that leave this module's goroutines running.
//
// A goroutine counts as this module's when a frame of its stack, or the
// "created by" frame that started it, is code of github.com/relock-go/relock
// outside test files: it is running library code (a watchdog, a
// subscription loop, a proxy link), or library code started it. Goroutines
// of the standard library, of dependencies (go-redis's pool, miniredis), of
// the testing framework and of the tests themselves do not count, nor does
// the goroutine doing the check.
//
// Every test package runs its tests through Main, by way of testenv.Main
// (which also silences go-redis's logger), so that no package passes while
// a goroutine of the library outlives its tests:
//
//	func TestMain(m *testing.M) { os.Exit(testenv.Main(m.Run)) }
//
// Check does the same for one test. A goroutine told to stop may need a
// moment to return, so both poll for up to Grace before they report.
package leakcheck

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Grace is how long a check waits for goroutines of the module to return
// before it reports them.
const Grace = 2 * time.Second

// modulePath prefixes the name of every function of this module.
const modulePath = "github.com/relock-go/relock/"

// pollInterval is how often a check looks again during its grace period.
const pollInterval = 5 * time.Millisecond

// Main runs the tests with run (m.Run, or a wrapper of it) and returns its
// exit code. When the tests passed, it then fails the package (exit code 1,
// the leaked stacks on stderr) if goroutines of the module are still
// running after Grace. After failed tests it reports nothing more: their
// leftovers are usually a consequence of the failure.
func Main(run func() int) int { return mainWith(run, os.Stderr, Grace) }

func mainWith(run func() int, w io.Writer, grace time.Duration) int {
	code := run()
	if code != 0 {
		return code
	}
	if left := await(nil, grace); len(left) > 0 {
		fmt.Fprintf(w, "leakcheck: %d goroutine(s) of %s still running %v after the tests:\n\n%s\n",
			len(left), strings.TrimSuffix(modulePath, "/"), grace, join(left))
		return 1
	}
	return code
}

// Check fails tb if goroutines of the module that did not exist when Check
// was called are still running after Grace when tb ends. Call it first in
// the test: it checks in a cleanup, and cleanups run last-in first-out, so
// the check comes after the test's other cleanups (closing Clients,
// proxies, connections) have run.
//
// Check cannot tell whose goroutines it sees: do not use it in a test that
// runs in parallel with others (t.Parallel) that start goroutines of the
// module.
func Check(tb testing.TB) { checkWith(tb, Grace) }

func checkWith(tb testing.TB, grace time.Duration) {
	tb.Helper()
	before := make(map[int64]bool)
	for _, g := range snapshot() {
		before[g.id] = true
	}
	tb.Cleanup(func() {
		if left := await(before, grace); len(left) > 0 {
			tb.Errorf("leakcheck: %d goroutine(s) of %s still running %v after the test:\n\n%s",
				len(left), strings.TrimSuffix(modulePath, "/"), grace, join(left))
		}
	})
}

// Goroutines returns the stacks of the goroutines of the module running
// now, other than the caller, each starting with its "goroutine N [state]:"
// line. It does not wait: for a test that counts them at a given moment.
func Goroutines() []string {
	var stacks []string
	for _, g := range snapshot() {
		if g.ours() {
			stacks = append(stacks, g.stack)
		}
	}
	return stacks
}

// Blocked returns, as Goroutines, the stacks of the module's goroutines
// that are waiting on something (a channel, a lock, I/O, a timer) rather
// than running or about to. After a Close that waits until its goroutines
// signal their exit, none of them may be blocked, though one may still be
// returning.
func Blocked() []string {
	var blocked []string
	for _, g := range Goroutines() {
		header, _, _ := strings.Cut(g, "\n")
		if !strings.Contains(header, "[running") && !strings.Contains(header, "[runnable") &&
			!strings.Contains(header, "[preempted") && !strings.Contains(header, "[copystack") {
			blocked = append(blocked, g)
		}
	}
	return blocked
}

// goroutine is one goroutine's entry in a dump of all stacks.
type goroutine struct {
	id    int64
	stack string // from its "goroutine N [state]:" line on
}

// ours reports whether g runs, or was started by, code of the module
// outside test files, and is not one of the testing framework's own
// goroutines: the main one (whose TestMain may be in library code, such as
// Main itself) and those running tests. Each function line of a stack is
// followed by a line with its file, so the two are read in pairs.
func (g goroutine) ours() bool {
	lines := strings.Split(g.stack, "\n")
	for _, line := range lines {
		if strings.HasPrefix(line, "testing.tRunner(") || strings.HasPrefix(line, "testing.(*M).Run(") {
			return false
		}
	}
	for i := 1; i+1 < len(lines); i++ {
		fn := strings.TrimPrefix(lines[i], "created by ")
		if !strings.HasPrefix(fn, modulePath) {
			continue
		}
		if file := lines[i+1]; strings.HasPrefix(file, "\t") && !strings.Contains(file, "_test.go:") {
			return true
		}
	}
	return false
}

// await returns the goroutines of the module not in skip that are still
// running after grace, or none as soon as there are none.
func await(skip map[int64]bool, grace time.Duration) []goroutine {
	deadline := time.Now().Add(grace)
	for {
		var left []goroutine
		for _, g := range snapshot() {
			if !skip[g.id] && g.ours() {
				left = append(left, g)
			}
		}
		if len(left) == 0 || !time.Now().Before(deadline) {
			return left
		}
		time.Sleep(pollInterval)
	}
}

// snapshot returns every goroutine but the caller's.
func snapshot() []goroutine {
	buf := make([]byte, 64<<10)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	// The caller's own stack comes first.
	var gs []goroutine
	for i, stack := range strings.Split(strings.TrimSpace(string(buf)), "\n\n") {
		if i == 0 {
			continue
		}
		if g, ok := parse(stack); ok {
			gs = append(gs, g)
		}
	}
	return gs
}

// parse reads the id from a stack's "goroutine N [state]:" header.
func parse(stack string) (goroutine, bool) {
	header, _, _ := strings.Cut(stack, "\n")
	rest, ok := strings.CutPrefix(header, "goroutine ")
	if !ok {
		return goroutine{}, false
	}
	idText, _, _ := strings.Cut(rest, " ")
	id, err := strconv.ParseInt(idText, 10, 64)
	if err != nil {
		return goroutine{}, false
	}
	return goroutine{id: id, stack: stack}, true
}

func join(gs []goroutine) string {
	stacks := make([]string, len(gs))
	for i, g := range gs {
		stacks[i] = g.stack
	}
	return strings.Join(stacks, "\n\n")
}
