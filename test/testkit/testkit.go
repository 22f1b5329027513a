// Package testkit holds the small helpers that relock's tests share: a
// context bounded by the test, waiting for a state no event announces,
// go-redis clients, fault proxies closed with the test.
//
// It imports nothing of the library, so that the tests of every package,
// pubsub's, queue's and scripts' included, can use it; the helpers that
// need an rlock Client are in package lockkit. Like every package under
// test/, it exists for relock's own tests and makes no compatibility
// promise: its API changes as the tests need.
package testkit

import (
	"context"
	"testing"
	"time"
)

// Ctx returns a context that ends after d, or when the test ends.
func Ctx(tb testing.TB, d time.Duration) context.Context {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	tb.Cleanup(cancel)
	return ctx
}

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

// Closed reports whether c is closed, without waiting.
func Closed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// Pause sleeps d, or until ctx ends.
func Pause(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}
