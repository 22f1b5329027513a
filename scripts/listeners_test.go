package scripts

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/internal/keys"
	"github.com/relock-go/relock/test/testkit"
)

// listen subscribes a connection of rdb to channels and waits for the
// confirmations.
func listen(t *testing.T, rdb *redis.Client, channels ...string) {
	t.Helper()
	ctx := context.Background()
	sub := rdb.Subscribe(ctx, channels...)
	t.Cleanup(func() { _ = sub.Close() })
	for range channels {
		if _, err := sub.Receive(ctx); err != nil {
			t.Fatal(err)
		}
	}
}

// A lock's release that is heard, bare or not, and one passed on within a
// Client, reply who listened on its channel when asked to count: the
// subscribers, and the relock Clients among them (those subscribed to its
// presence marker too). A retry, a release nobody heard, and one not
// asked to count, count nobody.
func TestReleaseCountsListeners(t *testing.T) {
	_, rdb := testkit.Miniredis(t)
	ctx := context.Background()
	take := func() {
		t.Helper()
		if a, err := l.Acquire(ctx, rdb, "a:1", time.Second, 0); !a.OK || err != nil {
			t.Fatalf("Acquire = %+v, %v; want the lock", a, err)
		}
	}
	take()
	u := unlock("a:1", 1, time.Second)
	u.HoldCount, u.Bare, u.Count = 1, true, true
	if r, err := l.Release(ctx, rdb, u); r != (Reply{Outcome: Released}) || err != nil {
		t.Fatalf("bare release nobody hears = %+v, %v; want Released, counting nobody", r, err)
	}
	ch := keys.Channel("l")
	listen(t, rdb, ch, keys.Presence(ch)) // a relock Client
	listen(t, rdb, ch)                    // a Redisson client
	want := Listeners{Subscribers: 2, Relock: 1}

	take()
	u.Seq = 2
	if r, err := l.Release(ctx, rdb, u); r != (Reply{Outcome: Heard, Listeners: want}) || err != nil {
		t.Fatalf("bare release = %+v, %v; want Heard, %+v", r, err, want)
	}
	take()
	u.Seq, u.Count = 3, false
	if r, err := l.Release(ctx, rdb, u); r != (Reply{Outcome: Heard}) || err != nil {
		t.Fatalf("bare release not asked to count = %+v, %v; want Heard, counting nobody", r, err)
	}
	take()
	u = unlock("a:1", 4, time.Second)
	u.Next, u.NextLease, u.Count = "b:1", time.Second, true
	if r, err := l.Release(ctx, rdb, u); r != (Reply{Outcome: HandedOff, Listeners: want}) || err != nil {
		t.Fatalf("hand-off = %+v, %v; want HandedOff, %+v", r, err, want)
	}
	if r, err := l.Release(ctx, rdb, u); r != (Reply{Outcome: HandedOff}) || err != nil {
		t.Fatalf("retried hand-off = %+v, %v; want HandedOff, counting nobody", r, err)
	}
	full := unlock("b:1", 1, time.Second)
	full.Count = true
	if r, err := l.Release(ctx, rdb, full); r != (Reply{Outcome: Heard, Listeners: want}) || err != nil {
		t.Fatalf("full release = %+v, %v; want Heard, %+v", r, err, want)
	}
	take()
	u.Seq, u.Count = 5, false
	if r, err := l.Release(ctx, rdb, u); r != (Reply{Outcome: HandedOff}) || err != nil {
		t.Fatalf("hand-off not asked to count = %+v, %v; want HandedOff, counting nobody", r, err)
	}
}

// A semaphore's release, of either kind, that a subscriber heard replies
// who listened on its channel when asked to count; one nobody heard, or
// not asked to count, counts nobody.
func TestSemaphoreReleaseCountsListeners(t *testing.T) {
	_, rdb := testkit.Miniredis(t)
	ctx := context.Background()
	s := NewSemaphore("s")
	req := Request{Client: "c", Field: 1, Seq: 1, TTL: time.Minute}
	if n, ls, err := s.Release(ctx, rdb, 1, Publish, req, true); n != 1 || ls != (Listeners{}) || err != nil {
		t.Fatalf("release nobody hears = %d, %+v, %v; want 1, counting nobody", n, ls, err)
	}
	listen(t, rdb, s.Channel())
	want := Listeners{Subscribers: 1}
	req.Seq = 2
	if n, ls, err := s.Release(ctx, rdb, 1, Publish, req, true); n != 2 || ls != want || err != nil {
		t.Fatalf("release heard = %d, %+v, %v; want 2, %+v", n, ls, err, want)
	}
	req.Seq = 3
	if n, ls, err := s.Release(ctx, rdb, -1, Publish, req, false); n != 1 || ls != (Listeners{}) || err != nil {
		t.Fatalf("release heard, not asked to count = %d, %+v, %v; want 1, counting nobody", n, ls, err)
	}
	p := NewPermitSemaphore("s")
	id := []byte("0123456789abcdef")
	if ok, _, err := p.Acquire(ctx, rdb, [][]byte{id}, time.Time{}, true, Publish); !ok || err != nil {
		t.Fatalf("permit acquisition = %v, %v", ok, err)
	}
	req.Seq = 4
	if n, ls, err := p.Release(ctx, rdb, [][]byte{id}, Publish, req, true); n != 1 || ls != want || err != nil {
		t.Fatalf("permit release heard = %d, %+v, %v; want 1, %+v", n, ls, err, want)
	}
}
