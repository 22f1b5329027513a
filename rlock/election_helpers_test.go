package rlock

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/internal/keys"
)

// campaignResult is what a Campaign returned.
type campaignResult struct {
	t   *Term
	err error
}

// campaignAsync runs e.Campaign in a goroutine; the channel yields its
// result.
func campaignAsync(ctx context.Context, e *Election, value string) <-chan campaignResult {
	ch := make(chan campaignResult, 1)
	go func() {
		t, err := e.Campaign(ctx, value)
		ch <- campaignResult{t, err}
	}()
	return ch
}

// awaitTerm waits for a campaignAsync result and fails the test if it is
// an error or does not come within d.
func awaitTerm(t *testing.T, ch <-chan campaignResult, d time.Duration) *Term {
	t.Helper()
	select {
	case r := <-ch:
		if r.err != nil {
			t.Fatalf("Campaign: %v", r.err)
		}
		return r.t
	case <-time.After(d):
		t.Fatalf("Campaign not elected within %v", d)
	}
	return nil
}

// notElected fails the test if the campaign returns within d.
func notElected(t *testing.T, ch <-chan campaignResult, d time.Duration, why string) {
	t.Helper()
	select {
	case r := <-ch:
		t.Fatalf("Campaign returned %v, %v: want it waiting (%s)", r.t, r.err, why)
	case <-time.After(d):
	}
}

// mustCampaign campaigns and fails the test on error.
func mustCampaign(t *testing.T, e *Election, value string) *Term {
	t.Helper()
	term, err := e.Campaign(ctxT(t), value)
	if err != nil {
		t.Fatalf("Campaign(%q): %v", value, err)
	}
	return term
}

// mustResign resigns and fails the test on error.
func mustResign(t *testing.T, term *Term) {
	t.Helper()
	if err := term.Resign(context.Background()); err != nil {
		t.Fatalf("Resign of term %d: %v", term.Token(), err)
	}
}

// awaitQueued waits until the election's fair queue holds n candidates.
func awaitQueued(t *testing.T, rdb *redis.Client, name string, n int) {
	t.Helper()
	eventually(t, 5*time.Second, "candidates queued", func() bool { return len(queueOf(t, rdb, name)) == n })
}

// leaderNow is e.Leader; ok is false on ErrNoLeader, and any other error
// fails the test.
func leaderNow(t *testing.T, e *Election) (Leader, bool) {
	t.Helper()
	l, err := e.Leader(context.Background())
	if errors.Is(err, ErrNoLeader) {
		return Leader{}, false
	}
	if err != nil {
		t.Fatalf("Leader: %v", err)
	}
	return l, true
}

// closedWithin reports whether ch is closed, or closes within d.
func closedWithin(ch <-chan struct{}, d time.Duration) bool {
	select {
	case <-ch:
		return true
	default:
	}
	select {
	case <-ch:
		return true
	case <-time.After(d):
		return false
	}
}

// logKinds reads the election's log: each change's kind and token.
func logKinds(t *testing.T, rdb *redis.Client, name string) []string {
	t.Helper()
	entries, err := rdb.XRange(context.Background(), keys.ElectionLog(name), "-", "+").Result()
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, e := range entries {
		kinds = append(kinds, e.Values["kind"].(string)+":"+e.Values["token"].(string))
	}
	return kinds
}
