package scripts

import (
	"context"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"
)

func newRedis(t *testing.T) (*miniredis.Miniredis, *redis.Client) {
	t.Helper()
	mr := miniredis.RunT(t)
	rdb := redis.NewClient(&redis.Options{Addr: mr.Addr()})
	t.Cleanup(func() { _ = rdb.Close() })
	return mr, rdb
}

func TestAcquireCreatesReentersOrReportsTTL(t *testing.T) {
	mr, rdb := newRedis(t)
	ctx := context.Background()
	for want := 1; want <= 2; want++ {
		ok, _, err := Acquire(ctx, rdb, "l", "a:1", 5*time.Second, want-1)
		if !ok || err != nil {
			t.Fatalf("Acquire by the owner = %v, %v", ok, err)
		}
		if got := mr.HGet("l", "a:1"); got != string(rune('0'+want)) {
			t.Fatalf("hold count = %q, want %d", got, want)
		}
	}
	if ttl := mr.TTL("l"); ttl != 5*time.Second {
		t.Fatalf("TTL = %v, want the lease", ttl)
	}
	mr.FastForward(2 * time.Second)
	ok, ttl, err := Acquire(ctx, rdb, "l", "b:1", 5*time.Second, 0)
	if ok || err != nil || ttl != 3*time.Second {
		t.Fatalf("Acquire by another owner = %v, %v, %v; want false, 3s, nil", ok, ttl, err)
	}
}

func TestReleaseOutcomes(t *testing.T) {
	mr, rdb := newRedis(t)
	ctx := context.Background()
	Acquire(ctx, rdb, "l", "a:1", time.Second, 0)
	Acquire(ctx, rdb, "l", "a:1", time.Second, 1)
	sub := rdb.Subscribe(ctx, "ch")
	defer sub.Close()
	if _, err := sub.Receive(ctx); err != nil {
		t.Fatal(err)
	}

	if r, err := ReleaseHold(ctx, rdb, "l", "ch", "latch:1", "0", "b:1", time.Second, time.Minute, Publish); r != NotHeld || err != nil {
		t.Fatalf("release by a non-owner = %v, %v", r, err)
	}
	mr.FastForward(900 * time.Millisecond)
	if r, err := ReleaseHold(ctx, rdb, "l", "ch", "latch:2", "0", "a:1", 4*time.Second, time.Minute, Publish); r != StillHeld || err != nil {
		t.Fatalf("inner release = %v, %v", r, err)
	}
	if ttl := mr.TTL("l"); ttl != 4*time.Second {
		t.Fatalf("TTL after the inner release = %v, want the lease re-armed", ttl)
	}
	if r, err := ReleaseHold(ctx, rdb, "l", "ch", "latch:3", "0", "a:1", time.Second, time.Minute, Publish); r != Released || err != nil {
		t.Fatalf("last release = %v, %v", r, err)
	}
	if mr.Exists("l") {
		t.Fatal("lock key left after the last release")
	}
	msg, err := sub.ReceiveMessage(ctx)
	if err != nil || msg.Channel != "ch" || msg.Payload != "0" {
		t.Fatalf("published %v, %v; want 0 on ch", msg, err)
	}
}

func TestForceRelease(t *testing.T) {
	_, rdb := newRedis(t)
	ctx := context.Background()
	Acquire(ctx, rdb, "l", "a:1", time.Second, 0)
	if ok, err := ForceRelease(ctx, rdb, "l", "ch", "0", Publish); !ok || err != nil {
		t.Fatalf("ForceRelease of a held lock = %v, %v", ok, err)
	}
	if ok, err := ForceRelease(ctx, rdb, "l", "ch", "0", Publish); ok || err != nil {
		t.Fatalf("ForceRelease of a free lock = %v, %v", ok, err)
	}
}

func TestRenewBatchesSurviveScriptFlush(t *testing.T) {
	mr, rdb := newRedis(t)
	ctx := context.Background()
	Acquire(ctx, rdb, "a", "o:1", time.Second, 0)
	Acquire(ctx, rdb, "b", "o:2", time.Second, 0)
	Acquire(ctx, rdb, "c", "o:3", time.Second, 0)
	batches := [][]Held{
		{{Key: "a", Owner: "o:1"}, {Key: "b", Owner: "wrong"}},
		{{Key: "c", Owner: "o:3"}, {Key: "gone", Owner: "o:4"}},
	}
	if err := rdb.ScriptFlush(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	renewed, errs := Renew(ctx, rdb, 7*time.Second, batches)
	for i, err := range errs {
		if err != nil {
			t.Fatalf("batch %d: %v", i, err)
		}
	}
	want := [][]bool{{true, false}, {true, false}}
	for i := range want {
		for j := range want[i] {
			if renewed[i][j] != want[i][j] {
				t.Fatalf("renewed = %v, want %v", renewed, want)
			}
		}
	}
	if mr.TTL("a") != 7*time.Second || mr.TTL("b") != time.Second || mr.TTL("c") != 7*time.Second {
		t.Fatalf("TTLs a=%v b=%v c=%v, want 7s 1s 7s", mr.TTL("a"), mr.TTL("b"), mr.TTL("c"))
	}
}

func TestMillisRoundsUp(t *testing.T) {
	for d, want := range map[time.Duration]int64{
		time.Nanosecond: 1, time.Millisecond: 1, 1500 * time.Microsecond: 2, 30 * time.Second: 30000,
	} {
		if got := Millis(d); got != want {
			t.Errorf("Millis(%v) = %d, want %d", d, got, want)
		}
	}
}

func TestRetriedRequestsAreAppliedOnce(t *testing.T) {
	mr, rdb := newRedis(t)
	ctx := context.Background()
	// An acquisition whose reply was lost is sent again with the same
	// knowledge of the holds: it must not count twice.
	for range 2 {
		if ok, _, err := Acquire(ctx, rdb, "l", "a:1", time.Second, 0); !ok || err != nil {
			t.Fatalf("Acquire = %v, %v", ok, err)
		}
	}
	if got := mr.HGet("l", "a:1"); got != "1" {
		t.Fatalf("hold count after a retried acquisition = %s, want 1", got)
	}
	Acquire(ctx, rdb, "l", "a:1", time.Second, 1)
	// A release retried with the same request gets the first outcome and
	// releases nothing more.
	for range 2 {
		r, err := ReleaseHold(ctx, rdb, "l", "ch", "latch:x", "0", "a:1", time.Second, time.Minute, Publish)
		if r != StillHeld || err != nil {
			t.Fatalf("ReleaseHold = %v, %v; want StillHeld", r, err)
		}
	}
	if got := mr.HGet("l", "a:1"); got != "1" {
		t.Fatalf("hold count after a retried release = %s, want 1", got)
	}
	for range 2 {
		r, err := ReleaseHold(ctx, rdb, "l", "ch", "latch:y", "0", "a:1", time.Second, time.Minute, Publish)
		if r != Released || err != nil {
			t.Fatalf("ReleaseHold = %v, %v; want Released both times", r, err)
		}
	}
	if ttl := mr.TTL("latch:y"); ttl != time.Minute {
		t.Fatalf("latch TTL = %v, want 1m", ttl)
	}
}

func TestFencedTokensGrowAndRetriesKeepThem(t *testing.T) {
	_, rdb := newRedis(t)
	ctx := context.Background()
	var last int64
	for holds := range 3 {
		ok, _, token, err := AcquireFenced(ctx, rdb, "l", "tok", "a:1", time.Second, holds)
		if !ok || err != nil || token <= last {
			t.Fatalf("AcquireFenced = %v, %d, %v; want a token above %d", ok, token, err, last)
		}
		last = token
	}
	// A retry of the last acquisition returns the same token.
	if _, _, token, _ := AcquireFenced(ctx, rdb, "l", "tok", "a:1", time.Second, 2); token != last {
		t.Fatalf("retried acquisition token = %d, want %d", token, last)
	}
	ok, ttl, _, err := AcquireFenced(ctx, rdb, "l", "tok", "b:1", time.Second, 0)
	if ok || err != nil || ttl <= 0 {
		t.Fatalf("AcquireFenced by another owner = %v, %v, %v; want false and the TTL", ok, ttl, err)
	}
}
