package testkit

import (
	"fmt"
	"runtime"
	"testing"
)

// Recorder is a testing.TB for the tests of test helpers: it records the
// cleanups a helper registers and how the helper fails the test, instead
// of failing the real test it wraps. Fatalf and Fatal end the goroutine
// that calls them, as they do in a test: call the helper through Run.
type Recorder struct {
	testing.TB
	Cleanups []func()
	Errors   []string // messages of Errorf
	Failure  string   // message of Fatalf or Fatal, when one was called
}

// NewRecorder returns a Recorder whose other methods are tb's.
func NewRecorder(tb testing.TB) *Recorder { return &Recorder{TB: tb} }

// Helper does nothing.
func (r *Recorder) Helper() {}

// Cleanup records f; End runs it.
func (r *Recorder) Cleanup(f func()) { r.Cleanups = append(r.Cleanups, f) }

// Errorf records the message.
func (r *Recorder) Errorf(format string, args ...any) {
	r.Errors = append(r.Errors, fmt.Sprintf(format, args...))
}

// Fatalf records the message and ends the calling goroutine.
func (r *Recorder) Fatalf(format string, args ...any) {
	r.Failure = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// Fatal records the message and ends the calling goroutine.
func (r *Recorder) Fatal(args ...any) { r.Fatalf("%s", fmt.Sprint(args...)) }

// Run calls f with r in a goroutine of its own, as a test runs, and
// returns once f has returned or failed.
func (r *Recorder) Run(f func(testing.TB)) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(r)
	}()
	<-done
}

// End runs the recorded cleanups as the testing package does at a test's
// end: the last registered first.
func (r *Recorder) End() {
	for i := len(r.Cleanups) - 1; i >= 0; i-- {
		r.Cleanups[i]()
	}
}
