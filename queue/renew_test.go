package queue

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/internal/keys"
	"github.com/relock-go/relock/scripts"
)

// The watchdog's renewal of a fair lock re-arms the hold's lease and keeps
// the queue's head's deadline at least a wait timeout away, every deadline
// moving as much: a Redisson head's never moves with time, and through a
// hold longer than its wait timeout its own script would purge it when it
// next woke. A lock its owner no longer holds is neither renewed nor
// touched.
func TestRenewKeepsTheHeadFresh(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.hold("holder")
	// What Redisson's tryLock script writes for two waiters.
	f.rdb.RPush(ctx, keys.Queue(name), "java:1", "java:2")
	first := f.now.UnixMilli() + lease.Milliseconds() + wait.Milliseconds()
	f.rdb.ZAdd(ctx, keys.Timeout(name), redis.Z{Score: float64(first), Member: "java:1"}, redis.Z{Score: float64(first + wait.Milliseconds()), Member: "java:2"})
	// The holder's watchdog kept the lock past the head's deadline.
	f.setNow(f.now.Add(lease + wait + time.Second))
	f.mr.SetTTL(name, time.Millisecond)
	renewed, errs := NewRenewer(wait).Renew(ctx, f.rdb, lease, [][]scripts.Held{{{Key: name, Owner: "holder"}, {Key: name, Owner: "other"}}})
	if errs[0] != nil || !renewed[0][0] || renewed[0][1] {
		t.Fatalf("renewed %v, %v; want the holder's hold only", renewed, errs)
	}
	if ttl := f.rdb.PTTL(ctx, name).Val(); ttl != lease {
		t.Errorf("the lock's TTL %v after the renewal, want the lease %v", ttl, lease)
	}
	f.assertLine("java:1", "java:2")
	if d := f.deadline("java:1"); d != wait.Milliseconds() {
		t.Errorf("the head's deadline %d ms from now after the renewal, want a wait timeout (%d)", d, wait.Milliseconds())
	}
	if d := f.deadline("java:2") - f.deadline("java:1"); d != wait.Milliseconds() {
		t.Errorf("java:2's deadline %d ms behind the head's, want a wait timeout", d)
	}
	// A renewal finding the head's deadline more than half a wait timeout
	// away moves nothing.
	f.setNow(f.now.Add(wait/2 - time.Second))
	if _, errs := NewRenewer(wait).Renew(ctx, f.rdb, lease, [][]scripts.Held{{{Key: name, Owner: "holder"}}}); errs[0] != nil {
		t.Fatal(errs[0])
	}
	if d := f.deadline("java:1"); d != wait.Milliseconds()/2+1000 {
		t.Errorf("the head's deadline %d ms from now, want %d: moved though more than half a wait timeout away", d, wait.Milliseconds()/2+1000)
	}
}

// With a wait timeout shorter than the lease, a renewal keeps the head's
// deadline a lease away: renewals come a third of a lease apart, and a
// wait timeout from one would pass before the next.
func TestRenewKeepsTheHeadALeaseAwayPastAShortWait(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.hold("holder")
	f.rdb.RPush(ctx, keys.Queue(name), "java:1")
	f.rdb.ZAdd(ctx, keys.Timeout(name), redis.Z{Score: float64(f.now.UnixMilli() + 1000), Member: "java:1"})
	if _, errs := NewRenewer(time.Second).Renew(ctx, f.rdb, lease, [][]scripts.Held{{{Key: name, Owner: "holder"}}}); errs[0] != nil {
		t.Fatal(errs[0])
	}
	if d := f.deadline("java:1"); d != lease.Milliseconds() {
		t.Errorf("the head's deadline %d ms from now after the renewal, want a lease (%d)", d, lease.Milliseconds())
	}
}
