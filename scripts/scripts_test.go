package scripts

import (
	"context"
	"testing"
	"time"

	"github.com/relock-go/relock/internal/keys"
	"github.com/relock-go/relock/test/testkit"
)

// l is the lock the tests take; its channel is keys.Channel("l").
var l = NewLock("l")

// unlock is release request seq of owner, whose latch is "latch:" + owner.
func unlock(owner string, seq uint64, lease time.Duration) Unlock {
	return Unlock{Owner: owner, Lease: lease, Record: "latch:" + owner, Seq: seq, RecordTTL: time.Minute, Publish: Publish}
}

func TestAcquireCreatesReentersOrReportsTTL(t *testing.T) {
	mr, rdb := testkit.Miniredis(t)
	ctx := context.Background()
	for want := 1; want <= 2; want++ {
		a, err := l.Acquire(ctx, rdb, "a:1", 5*time.Second, want-1)
		if !a.OK || err != nil {
			t.Fatalf("Acquire by the owner = %+v, %v", a, err)
		}
		if got := mr.HGet("l", "a:1"); got != string(rune('0'+want)) {
			t.Fatalf("hold count = %q, want %d", got, want)
		}
	}
	if ttl := mr.TTL("l"); ttl != 5*time.Second {
		t.Fatalf("TTL = %v, want the lease", ttl)
	}
	mr.FastForward(2 * time.Second)
	a, err := l.Acquire(ctx, rdb, "b:1", 5*time.Second, 0)
	if a.OK || err != nil || a.TTL != 3*time.Second {
		t.Fatalf("Acquire by another owner = %+v, %v; want false, 3s, nil", a, err)
	}
}

func TestReleaseOutcomes(t *testing.T) {
	mr, rdb := testkit.Miniredis(t)
	ctx := context.Background()
	l.Acquire(ctx, rdb, "a:1", time.Second, 0)
	l.Acquire(ctx, rdb, "a:1", time.Second, 1)
	sub := rdb.Subscribe(ctx, keys.Channel("l"))
	defer sub.Close()
	if _, err := sub.Receive(ctx); err != nil {
		t.Fatal(err)
	}

	if r, err := l.Release(ctx, rdb, unlock("b:1", 1, time.Second)); r.Outcome != NotHeld || err != nil {
		t.Fatalf("release by a non-owner = %v, %v", r, err)
	}
	mr.FastForward(900 * time.Millisecond)
	if r, err := l.Release(ctx, rdb, unlock("a:1", 1, 4*time.Second)); r.Outcome != StillHeld || err != nil {
		t.Fatalf("inner release = %v, %v", r, err)
	}
	if ttl := mr.TTL("l"); ttl != 4*time.Second {
		t.Fatalf("TTL after the inner release = %v, want the lease re-armed", ttl)
	}
	// A subscriber listens: the release is heard.
	if r, err := l.Release(ctx, rdb, unlock("a:1", 2, time.Second)); r.Outcome != Heard || err != nil {
		t.Fatalf("last release = %v, %v; want Heard", r, err)
	}
	if mr.Exists("l") {
		t.Fatal("lock key left after the last release")
	}
	// Its retry finds the latch: released, with no step aside.
	if r, err := l.Release(ctx, rdb, unlock("a:1", 2, time.Second)); r.Outcome != Released || err != nil {
		t.Fatalf("retried last release = %v, %v; want Released", r, err)
	}
	msg, err := sub.ReceiveMessage(ctx)
	if err != nil || msg.Channel != keys.Channel("l") || msg.Payload != "0" {
		t.Fatalf("published %v, %v; want 0 on the lock's channel", msg, err)
	}
}

// The last release passes the lock to the owner named: its field holds
// once with its lease, and nothing is published. With nobody listening, a
// last release is Released, not Heard.
func TestReleaseHandsOff(t *testing.T) {
	mr, rdb := testkit.Miniredis(t)
	ctx := context.Background()
	l.Acquire(ctx, rdb, "a:1", time.Second, 0)
	u := unlock("a:1", 1, time.Second)
	u.Next, u.NextLease = "b:1", 7*time.Second
	if r, err := l.Release(ctx, rdb, u); r.Outcome != HandedOff || err != nil {
		t.Fatalf("release with a next owner = %v, %v; want HandedOff", r, err)
	}
	if got := mr.HGet("l", "b:1"); got != "1" || mr.HGet("l", "a:1") != "" {
		t.Fatalf("fields after the hand-off: b:1 = %q, a:1 = %q; want b:1 holding once, a:1 gone", got, mr.HGet("l", "a:1"))
	}
	if ttl := mr.TTL("l"); ttl != 7*time.Second {
		t.Fatalf("TTL after the hand-off = %v, want the next owner's lease", ttl)
	}
	if r, err := l.Release(ctx, rdb, u); r.Outcome != HandedOff || err != nil {
		t.Fatalf("retried hand-off = %v, %v; want the latched HandedOff", r, err)
	}
	if r, err := l.Release(ctx, rdb, unlock("b:1", 1, time.Second)); r.Outcome != Released || err != nil {
		t.Fatalf("last release nobody hears = %v, %v; want Released", r, err)
	}
}

func TestForceRelease(t *testing.T) {
	_, rdb := testkit.Miniredis(t)
	ctx := context.Background()
	l.Acquire(ctx, rdb, "a:1", time.Second, 0)
	if ok, err := l.ForceRelease(ctx, rdb, Publish); !ok || err != nil {
		t.Fatalf("ForceRelease of a held lock = %v, %v", ok, err)
	}
	if ok, err := l.ForceRelease(ctx, rdb, Publish); ok || err != nil {
		t.Fatalf("ForceRelease of a free lock = %v, %v", ok, err)
	}
}

func TestRenewBatchesSurviveScriptFlush(t *testing.T) {
	mr, rdb := testkit.Miniredis(t)
	ctx := context.Background()
	NewLock("a").Acquire(ctx, rdb, "o:1", time.Second, 0)
	NewLock("b").Acquire(ctx, rdb, "o:2", time.Second, 0)
	NewLock("c").Acquire(ctx, rdb, "o:3", time.Second, 0)
	batches := [][]Held{
		{{Key: "a", Owner: "o:1"}, {Key: "b", Owner: "wrong"}},
		{{Key: "c", Owner: "o:3"}, {Key: "gone", Owner: "o:4"}},
	}
	if err := rdb.ScriptFlush(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	renewed, errs := HashRenewer.Renew(ctx, rdb, 7*time.Second, batches)
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
	mr, rdb := testkit.Miniredis(t)
	ctx := context.Background()
	// An acquisition whose reply was lost is sent again with the same
	// knowledge of the holds: it must not count twice.
	for range 2 {
		if a, err := l.Acquire(ctx, rdb, "a:1", time.Second, 0); !a.OK || err != nil {
			t.Fatalf("Acquire = %+v, %v", a, err)
		}
	}
	if got := mr.HGet("l", "a:1"); got != "1" {
		t.Fatalf("hold count after a retried acquisition = %s, want 1", got)
	}
	l.Acquire(ctx, rdb, "a:1", time.Second, 1)
	// A release retried with the same request gets the first outcome and
	// releases nothing more, whether the owner tells its hold count (then
	// the count records a release that leaves holds, and the latch is read
	// only when the count has changed) or not.
	inner := unlock("a:1", 1, time.Second)
	inner.HoldCount = 2
	for range 2 {
		r, err := l.Release(ctx, rdb, inner)
		if r.Outcome != StillHeld || err != nil {
			t.Fatalf("Release = %v, %v; want StillHeld", r, err)
		}
	}
	if got := mr.HGet("l", "a:1"); got != "1" {
		t.Fatalf("hold count after a retried release = %s, want 1", got)
	}
	if mr.Exists("latch:a:1") {
		t.Fatal("a release that left holds at the count its owner knew wrote a latch; the count records it")
	}
	l.Acquire(ctx, rdb, "a:1", time.Second, 1)
	for range 2 {
		r, err := l.Release(ctx, rdb, unlock("a:1", 2, time.Second))
		if r.Outcome != StillHeld || err != nil {
			t.Fatalf("Release by an owner that does not tell its count = %v, %v; want StillHeld", r, err)
		}
	}
	if got := mr.HGet("l", "a:1"); got != "1" {
		t.Fatalf("hold count after a retried release = %s, want 1", got)
	}
	for range 2 {
		r, err := l.Release(ctx, rdb, unlock("a:1", 3, time.Second))
		if r.Outcome != Released || err != nil {
			t.Fatalf("Release = %v, %v; want Released both times", r, err)
		}
	}
	if ttl := mr.TTL("latch:a:1"); ttl != time.Minute {
		t.Fatalf("latch TTL = %v, want 1m", ttl)
	}
}

// An owner's release requests share one record key, which each request
// overwrites: many Lock and Unlock cycles leave one key, not one per
// Unlock, and a request's record does not answer for a later one's.
func TestReleasesOfOneOwnerShareARecord(t *testing.T) {
	mr, rdb := testkit.Miniredis(t)
	ctx := context.Background()
	for seq := uint64(1); seq <= 100; seq++ {
		if a, err := l.Acquire(ctx, rdb, "a:1", time.Second, 0); !a.OK || err != nil {
			t.Fatalf("Acquire %d = %+v, %v", seq, a, err)
		}
		if r, err := l.Release(ctx, rdb, unlock("a:1", seq, time.Second)); r.Outcome != Released || err != nil {
			t.Fatalf("Release %d = %v, %v; want Released", seq, r, err)
		}
	}
	if got := mr.Keys(); len(got) != 1 || got[0] != "latch:a:1" {
		t.Fatalf("keys after 100 cycles = %v, want the one latch", got)
	}
	if got, err := mr.Get("latch:a:1"); got != "100:1" || err != nil {
		t.Fatalf("latch = %q, %v; want the last request's number and outcome, 100:1", got, err)
	}
	// The next request is not taken for a retry of the last one.
	if r, err := l.Release(ctx, rdb, unlock("a:1", 101, time.Second)); r.Outcome != NotHeld || err != nil {
		t.Fatalf("Release of a free lock = %v, %v; want NotHeld", r, err)
	}
}

func TestFencedTokensGrowAndRetriesKeepThem(t *testing.T) {
	_, rdb := testkit.Miniredis(t)
	ctx := context.Background()
	first, err := l.AcquireFenced(ctx, rdb, "a:1", time.Second, 0, 0)
	if !first.OK || err != nil || first.Token <= 0 {
		t.Fatalf("AcquireFenced = %+v, %v; want a token", first, err)
	}
	// A retry of the acquisition, its reply lost, keeps the token.
	if a, err := l.AcquireFenced(ctx, rdb, "a:1", time.Second, 0, 0); !a.OK || err != nil || a.Token != first.Token {
		t.Fatalf("retried acquisition = %+v, %v; want the token %d", a, err, first.Token)
	}
	// Re-entries keep the hold's token, and so does a retry.
	for holds := 1; holds <= 2; holds++ {
		if a, err := l.AcquireFenced(ctx, rdb, "a:1", time.Second, holds, first.Token); !a.OK || err != nil || a.Token != first.Token {
			t.Fatalf("re-entry = %+v, %v; want the token %d", a, err, first.Token)
		}
	}
	if a, _ := l.AcquireFenced(ctx, rdb, "a:1", time.Second, 2, first.Token); a.Token != first.Token {
		t.Fatalf("retried re-entry token = %d, want %d", a.Token, first.Token)
	}
	// A new hold takes a new token.
	if _, err := rdb.Del(ctx, "l").Result(); err != nil {
		t.Fatal(err)
	}
	second, err := l.AcquireFenced(ctx, rdb, "a:1", time.Second, 0, first.Token)
	if !second.OK || err != nil || second.Token <= first.Token {
		t.Fatalf("new hold = %+v, %v; want a token above %d", second, err, first.Token)
	}
	// So does one that finds the owner's field left by a hold whose
	// release a failover lost: the field is at the known count + 1, as
	// after a lost reply, but the counter is at the owner's latest token.
	third, err := l.AcquireFenced(ctx, rdb, "a:1", time.Second, 0, second.Token)
	if !third.OK || err != nil || third.Token <= second.Token {
		t.Fatalf("acquisition over a leftover field = %+v, %v; want a token above %d", third, err, second.Token)
	}
	if holds, err := rdb.HGet(ctx, "l", "a:1").Int(); holds != 1 || err != nil {
		t.Fatalf("hold count after it = %d, %v; want 1", holds, err)
	}
	a, err := l.AcquireFenced(ctx, rdb, "b:1", time.Second, 0, 0)
	if a.OK || err != nil || a.TTL <= 0 {
		t.Fatalf("AcquireFenced by another owner = %+v, %v; want false and the TTL", a, err)
	}
}
