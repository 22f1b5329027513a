package testenv

import (
	"runtime"
	"strings"
)

// modulePath prefixes the name of every function of this module.
const modulePath = "github.com/relock-go/relock/"

// Goroutines returns the stacks of the goroutines of the module running
// now, other than the caller, each starting with its "goroutine N
// [state]:" line. A goroutine is the module's when a frame of its stack,
// or the "created by" frame that started it, is code of the module outside
// test files, and it is not one of the testing framework's. It does not
// wait: it is for a test that looks at a given moment, which goleak, whose
// checks retry and see every goroutine, does not do.
func Goroutines() []string {
	var ours []string
	for _, stack := range allStacks() {
		if isModules(stack) {
			ours = append(ours, stack)
		}
	}
	return ours
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

// isModules reports whether stack runs, or was started by, code of the
// module outside test files, and is not one of the testing framework's own
// goroutines: the main one (whose TestMain may be in code of the module,
// such as Main) and those running tests. Each function line of a stack is
// followed by a line with its file, so the two are read in pairs.
func isModules(stack string) bool {
	lines := strings.Split(stack, "\n")
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

// allStacks returns the stack of every goroutine but the caller's.
func allStacks() []string {
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
	stacks := strings.Split(strings.TrimSpace(string(buf)), "\n\n")
	return stacks[1:]
}
