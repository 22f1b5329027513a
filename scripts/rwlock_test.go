package scripts

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/relock-go/relock/internal/keys"
	"github.com/relock-go/relock/test/testkit"
)

// rwUnlock is release request seq of owner's side whose latch is latch.
func rwUnlock(owner, latch string, seq uint64) Unlock {
	return Unlock{Owner: owner, Lease: 5 * time.Second, Record: latch, Seq: seq, RecordTTL: time.Minute, Publish: Publish}
}

func TestReadersShareWritersExclude(t *testing.T) {
	mr, rdb := testkit.Miniredis(t)
	ctx := context.Background()
	rw := NewRWLock("rw")
	for _, r := range []string{"a:1", "b:1"} {
		if a, err := rw.AcquireRead(ctx, rdb, r, 5*time.Second, 0); !a.OK || err != nil {
			t.Fatalf("AcquireRead %s = %+v, %v", r, a, err)
		}
	}
	if got := mr.HGet("rw", "mode"); got != "read" {
		t.Fatalf("mode = %q, want read", got)
	}
	if !mr.Exists("{rw}:a:1:rwlock_timeout:1") || !mr.Exists("{rw}:b:1:rwlock_timeout:1") {
		t.Fatal("read-timeout keys missing")
	}
	if a, err := rw.AcquireWrite(ctx, rdb, "c:1", 5*time.Second, 0); a.OK || err != nil || a.TTL <= 0 {
		t.Fatalf("AcquireWrite while read = %+v, %v; want refused with the TTL", a, err)
	}
	for i, r := range []string{"a:1", "b:1"} {
		res, err := rw.ReleaseRead(ctx, rdb, rwUnlock(r, "l"+r, 1))
		if res != Released || err != nil {
			t.Fatalf("ReleaseRead %s = %v, %v", r, res, err)
		}
		if exists := mr.Exists("rw"); exists != (i == 0) {
			t.Fatalf("after %d readers left, lock exists = %v", i+1, exists)
		}
	}
	if a, err := rw.AcquireWrite(ctx, rdb, "c:1", 5*time.Second, 0); !a.OK || err != nil {
		t.Fatalf("AcquireWrite when free = %+v, %v", a, err)
	}
	if mr.HGet("rw", "c:1:write") != "1" || mr.HGet("rw", "mode") != "write" {
		t.Fatal("write hold not in the hash")
	}
	if a, err := rw.AcquireRead(ctx, rdb, "a:1", 5*time.Second, 0); a.OK || err != nil {
		t.Fatalf("AcquireRead by another owner while written = %+v, %v", a, err)
	}
	if a, err := rw.AcquireWrite(ctx, rdb, "d:1", 5*time.Second, 0); a.OK || err != nil {
		t.Fatalf("second writer = %+v, %v", a, err)
	}
}

func TestWriterReentersAndDowngrades(t *testing.T) {
	mr, rdb := testkit.Miniredis(t)
	ctx := context.Background()
	rw := NewRWLock("rw")
	sub := rdb.Subscribe(ctx, keys.RWChannel("rw"))
	defer sub.Close()
	if _, err := sub.Receive(ctx); err != nil {
		t.Fatal(err)
	}
	for holds := range 2 {
		if a, err := rw.AcquireWrite(ctx, rdb, "w:1", 5*time.Second, holds); !a.OK || err != nil {
			t.Fatalf("AcquireWrite #%d = %+v, %v", holds+1, a, err)
		}
	}
	// A retry of the second acquisition is not counted twice.
	if a, _ := rw.AcquireWrite(ctx, rdb, "w:1", 5*time.Second, 1); !a.OK || mr.HGet("rw", "w:1:write") != "2" {
		t.Fatalf("retried write: %+v, count %s", a, mr.HGet("rw", "w:1:write"))
	}
	// Downgrade: the writer reads too.
	if a, err := rw.AcquireRead(ctx, rdb, "w:1", 5*time.Second, 0); !a.OK || err != nil {
		t.Fatalf("AcquireRead by the writer = %+v, %v", a, err)
	}
	if r, err := rw.ReleaseWrite(ctx, rdb, rwUnlock("w:1", "xw", 1)); r != StillHeld || err != nil {
		t.Fatalf("inner ReleaseWrite = %v, %v", r, err)
	}
	if r, err := rw.ReleaseWrite(ctx, rdb, rwUnlock("w:1", "xw", 2)); r != Released || err != nil {
		t.Fatalf("last ReleaseWrite = %v, %v", r, err)
	}
	if got := mr.HGet("rw", "mode"); got != "read" {
		t.Fatalf("mode after the writer left its read hold = %q, want read", got)
	}
	msg, err := sub.ReceiveMessage(ctx)
	if err != nil || msg.Payload != keys.ReadUnlockMessage {
		t.Fatalf("write release published %v, %v; want %q", msg, err, keys.ReadUnlockMessage)
	}
	// Now a reader: another reader joins, a writer is refused.
	if a, _ := rw.AcquireRead(ctx, rdb, "r:1", 5*time.Second, 0); !a.OK {
		t.Fatal("a reader was refused a downgraded lock")
	}
	if r, err := rw.ReleaseRead(ctx, rdb, rwUnlock("w:1", "xr", 1)); r != Released || err != nil {
		t.Fatalf("ReleaseRead = %v, %v", r, err)
	}
	if !mr.Exists("rw") {
		t.Fatal("the lock went while a reader holds it")
	}
	if r, _ := rw.ReleaseRead(ctx, rdb, rwUnlock("r:1", "xr1", 1)); r != Released || mr.Exists("rw") {
		t.Fatal("the last reader left the lock behind")
	}
	msg, err = sub.ReceiveMessage(ctx)
	if err != nil || msg.Payload != keys.UnlockMessage {
		t.Fatalf("last read release published %v, %v; want %q", msg, err, keys.UnlockMessage)
	}
}

func TestUpgradeRefused(t *testing.T) {
	_, rdb := testkit.Miniredis(t)
	ctx := context.Background()
	rw := NewRWLock("rw")
	rw.AcquireRead(ctx, rdb, "a:1", 5*time.Second, 0)
	if _, err := rw.AcquireWrite(ctx, rdb, "a:1", 5*time.Second, 0); !errors.Is(err, ErrUpgrade) {
		t.Fatalf("AcquireWrite by a reader = %v, want ErrUpgrade", err)
	}
}

func TestReadReleaseKeepsLongestLeaseAndRetriesOnce(t *testing.T) {
	mr, rdb := testkit.Miniredis(t)
	ctx := context.Background()
	rw := NewRWLock("rw")
	rw.AcquireRead(ctx, rdb, "a:1", 10*time.Second, 0)
	rw.AcquireRead(ctx, rdb, "a:1", 10*time.Second, 1)
	rw.AcquireRead(ctx, rdb, "b:1", 3*time.Second, 0)
	for range 2 { // the retry is the same request
		if r, err := rw.ReleaseRead(ctx, rdb, rwUnlock("a:1", "la", 1)); r != StillHeld || err != nil {
			t.Fatalf("ReleaseRead = %v, %v; want StillHeld", r, err)
		}
	}
	if got := mr.HGet("rw", "a:1"); got != "1" {
		t.Fatalf("a's read holds = %s, want 1", got)
	}
	if mr.Exists("{rw}:a:1:rwlock_timeout:2") {
		t.Fatal("the released hold's timeout key is left")
	}
	if ttl := mr.TTL("rw"); ttl != 5*time.Second {
		t.Fatalf("TTL = %v, want a's re-armed lease, the longest", ttl)
	}
	rw.ReleaseRead(ctx, rdb, rwUnlock("a:1", "la", 2))
	if ttl := mr.TTL("rw"); ttl != 3*time.Second {
		t.Fatalf("TTL = %v, want b's lease", ttl)
	}
}

func TestReadRenewerRenewsOwnHoldsOnly(t *testing.T) {
	mr, rdb := testkit.Miniredis(t)
	ctx := context.Background()
	rw := NewRWLock("rw")
	rw.AcquireRead(ctx, rdb, "a:1", time.Second, 0)
	rw.AcquireRead(ctx, rdb, "a:1", time.Second, 1)
	rw.AcquireRead(ctx, rdb, "b:1", time.Second, 0)
	renewed, errs := ReadRenewer.Renew(ctx, rdb, 9*time.Second, [][]Held{{{Key: "rw", Owner: "a:1"}, {Key: "rw", Owner: "gone:1"}}})
	if errs[0] != nil || !renewed[0][0] || renewed[0][1] {
		t.Fatalf("renewed %v, %v; want a:1 only", renewed, errs)
	}
	for _, k := range []string{"rw", "{rw}:a:1:rwlock_timeout:1", "{rw}:a:1:rwlock_timeout:2"} {
		if mr.TTL(k) != 9*time.Second {
			t.Errorf("TTL of %s = %v, want 9s", k, mr.TTL(k))
		}
	}
	if mr.TTL("{rw}:b:1:rwlock_timeout:1") != time.Second {
		t.Error("another reader's hold was renewed")
	}
}

func TestRWForceRelease(t *testing.T) {
	mr, rdb := testkit.Miniredis(t)
	ctx := context.Background()
	rw := NewRWLock("rw")
	rw.AcquireWrite(ctx, rdb, "w:1", time.Second, 0)
	if ok, err := rw.ForceRelease(ctx, rdb, Publish); !ok || err != nil || mr.Exists("rw") {
		t.Fatalf("ForceRelease = %v, %v", ok, err)
	}
	if ok, _ := rw.ForceRelease(ctx, rdb, Publish); ok {
		t.Fatal("ForceRelease of a free lock reported one")
	}
}
