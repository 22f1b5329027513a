package redistest

import (
	"context"
	"testing"
	"time"
)

// Eventually fails tb unless cond holds within d, checking every few
// milliseconds. It is for states that no event announces (server-side
// counters, subscriptions, a goroutine's exit); where an event can be
// awaited, await it instead.
func Eventually(tb testing.TB, d time.Duration, what string, cond func() bool) {
	tb.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			tb.Fatalf("not within %v: %s", d, what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Context returns a context that ends after d, or when the test ends.
func Context(tb testing.TB, d time.Duration) context.Context {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	tb.Cleanup(cancel)
	return ctx
}
