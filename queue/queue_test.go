package queue

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/internal/keys"
	"github.com/relock-go/relock/scripts"
)

const (
	name  = "job"
	wait  = 300 * time.Second // Redisson's default fair wait timeout
	lease = 30 * time.Second
)

// fixture is a fair lock's queue on an embedded Redis whose clock stands
// still at now (TIME, and so every deadline, moves only with setNow).
type fixture struct {
	t   *testing.T
	mr  *miniredis.Miniredis
	rdb *redis.Client
	q   *Queue
	now time.Time
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	mr := miniredis.RunT(t)
	rdb := redis.NewClient(&redis.Options{Addr: mr.Addr()})
	t.Cleanup(func() { _ = rdb.Close() })
	f := &fixture{t: t, mr: mr, rdb: rdb, q: New(rdb, name, wait, func() string { return scripts.Publish })}
	f.setNow(time.UnixMilli(1_800_000_000_000))
	return f
}

func (f *fixture) setNow(now time.Time) {
	f.now = now
	f.mr.SetTime(now)
}

// hold takes the free lock for owner.
func (f *fixture) hold(owner string) {
	f.t.Helper()
	a, err := f.q.TryAcquire(context.Background(), f.rdb, owner, lease, 0)
	if err != nil || !a.Acquired {
		f.t.Fatalf("TryAcquire by %s: %+v, %v", owner, a, err)
	}
}

// listen subscribes to owner's own channel, as a waiter does before it
// queues, and returns its messages.
func (f *fixture) listen(owner string) <-chan *redis.Message {
	f.t.Helper()
	ps := f.rdb.Subscribe(context.Background(), f.q.Channel(owner))
	if _, err := ps.Receive(context.Background()); err != nil {
		f.t.Fatal(err)
	}
	f.t.Cleanup(func() { _ = ps.Close() })
	return ps.Channel()
}

// queue makes a listening Waiter for owner attempt once, and checks that
// it was queued at pos.
func (f *fixture) queue(owner string, pos int) (*Waiter, <-chan *redis.Message) {
	f.t.Helper()
	msgs := f.listen(owner)
	w := f.q.Waiter(owner)
	a, err := w.Attempt(context.Background(), f.rdb, lease, 0)
	if err != nil {
		f.t.Fatal(err)
	}
	if a.Acquired || a.Position != pos {
		f.t.Fatalf("%s's attempt: %+v, want queued at %d", owner, a, pos)
	}
	return w, msgs
}

// release releases owner's one hold.
func (f *fixture) release(owner string) scripts.Release {
	f.t.Helper()
	res, err := f.q.Release(context.Background(), scripts.Unlock{
		Owner: owner, Lease: lease, Latch: keys.UnlockLatch(name, owner),
		LatchTTL: time.Minute, Seq: 1, Holds: 1,
	})
	if err != nil {
		f.t.Fatal(err)
	}
	return res
}

func (f *fixture) line() []string {
	f.t.Helper()
	l, err := f.rdb.LRange(context.Background(), keys.Queue(name), 0, -1).Result()
	if err != nil {
		f.t.Fatal(err)
	}
	return l
}

func (f *fixture) assertLine(want ...string) {
	f.t.Helper()
	if got := f.line(); !slices.Equal(got, want) {
		f.t.Fatalf("queue %v, want %v", got, want)
	}
}

// deadline is owner's deadline, in ms after f.now.
func (f *fixture) deadline(owner string) int64 {
	f.t.Helper()
	ms, err := f.rdb.ZScore(context.Background(), keys.Timeout(name), owner).Result()
	if err != nil {
		f.t.Fatalf("deadline of %s: %v", owner, err)
	}
	return int64(ms) - f.now.UnixMilli()
}

func (f *fixture) holders() map[string]string {
	f.t.Helper()
	h, err := f.rdb.HGetAll(context.Background(), name).Result()
	if err != nil {
		f.t.Fatal(err)
	}
	return h
}

// message waits for the next message on msgs.
func message(t *testing.T, msgs <-chan *redis.Message) string {
	t.Helper()
	select {
	case m := <-msgs:
		return m.Payload
	case <-time.After(5 * time.Second):
		t.Fatal("no message")
		return ""
	}
}

// Waiters queue in arrival order with Redisson's deadlines: the first's is
// the lock's TTL plus the wait timeout from now, each next one's the one
// before's plus the wait timeout.
func TestWaitersQueueInOrderWithRedissonsDeadlines(t *testing.T) {
	f := newFixture(t)
	f.hold("holder")
	for i, w := range []string{"a", "b", "c"} {
		f.queue(w, i)
	}
	f.assertLine("a", "b", "c")
	want := (lease + wait).Milliseconds()
	for _, w := range []string{"a", "b", "c"} {
		if d := f.deadline(w); d != want {
			t.Errorf("deadline of %s: %d ms from now, want %d", w, d, want)
		}
		want += wait.Milliseconds()
	}
	// A later attempt keeps the waiter's place.
	a, err := f.q.Waiter("b").Attempt(context.Background(), f.rdb, lease, 0)
	if err != nil || a.Position != 1 || a.TTL != lease {
		t.Fatalf("b again: %+v, %v; want position 1 behind a lock with %v left", a, err, lease)
	}
}

// The last release grants the lock to a relock head inside the script:
// its field is written, it leaves the line, and it alone hears its grant.
// Its claim confirms the grant once.
func TestReleaseGrantsTheHead(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.hold("holder")
	a, aMsgs := f.queue("a", 0)
	_, bMsgs := f.queue("b", 1)
	if res := f.release("holder"); res != scripts.Released {
		t.Fatalf("release: %v, want Released", res)
	}
	if h := f.holders(); len(h) != 1 || h["a"] != "1" {
		t.Fatalf("lock after the release: %v, want a holding once", h)
	}
	if ttl := f.mr.TTL(name); ttl != lease {
		t.Errorf("granted lease %v, want %v", ttl, lease)
	}
	f.assertLine("b")
	if got := message(t, aMsgs); got != a.Grant() {
		t.Errorf("a heard %q, want its grant %q", got, a.Grant())
	}
	select {
	case m := <-bMsgs:
		t.Errorf("b heard %q, and its turn has not come", m.Payload)
	default:
	}
	if got, err := a.Claim(ctx, f.rdb, lease); err != nil || !got.Acquired {
		t.Fatalf("claim: %+v, %v", got, err)
	}
	if got, err := a.Claim(ctx, f.rdb, lease); err != nil || got.Acquired {
		t.Fatalf("second claim: %+v, %v; a grant is claimed once", got, err)
	}
}

// A waiter nobody listens to any more (its process died) is evicted when
// its turn comes, and the one behind it is granted the lock.
func TestDeadWaiterIsPassedOver(t *testing.T) {
	f := newFixture(t)
	f.hold("holder")
	dead := f.q.Waiter("dead")
	if _, err := dead.Attempt(context.Background(), f.rdb, lease, 0); err != nil {
		t.Fatal(err)
	}
	b, bMsgs := f.queue("b", 1)
	f.release("holder")
	if h := f.holders(); h["b"] != "1" || len(h) != 1 {
		t.Fatalf("lock after the release: %v, want b holding", h)
	}
	if got := message(t, bMsgs); got != b.Grant() {
		t.Errorf("b heard %q, want %q", got, b.Grant())
	}
	f.assertLine()
	if f.mr.Exists(keys.Timeout(name)) {
		t.Error("deadlines left behind an empty line")
	}
}

// A Redisson waiter at the head is woken with Redisson's message and takes
// the lock with its own script: no field is written for it.
func TestRedissonHeadIsWokenNotGranted(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.hold("holder")
	msgs := f.listen("java:1")
	// What Redisson's tryLock script writes for a waiter.
	f.rdb.RPush(ctx, keys.Queue(name), "java:1")
	f.rdb.ZAdd(ctx, keys.Timeout(name), redis.Z{Score: float64(f.now.Add(lease + wait).UnixMilli()), Member: "java:1"})
	if res := f.release("holder"); res != scripts.Released {
		t.Fatalf("release: %v", res)
	}
	if got := message(t, msgs); got != keys.UnlockMessage {
		t.Errorf("Redisson waiter heard %q, want %q", got, keys.UnlockMessage)
	}
	if f.mr.Exists(name) {
		t.Fatalf("lock written for a Redisson waiter: %v", f.holders())
	}
	f.assertLine("java:1")
}

// A waiter that leaves lets the line move up, deadlines included; leaving
// twice is harmless.
func TestLeaveMovesTheLineUp(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.hold("holder")
	a, _ := f.queue("a", 0)
	f.queue("b", 1)
	before := f.deadline("b")
	for range 2 {
		if err := a.Leave(ctx); err != nil {
			t.Fatal(err)
		}
	}
	f.assertLine("b")
	if d := f.deadline("b"); d != before-wait.Milliseconds() {
		t.Errorf("b's deadline %d ms from now after a left, want %d", d, before-wait.Milliseconds())
	}
}

// A head whose deadline passed is evicted by the next attempt of anyone,
// and the waiter behind it becomes the head.
func TestStaleHeadIsEvicted(t *testing.T) {
	f := newFixture(t)
	f.hold("holder")
	f.queue("a", 0)
	b, _ := f.queue("b", 1)
	f.setNow(f.now.Add(lease + wait + time.Millisecond))
	a, err := b.Attempt(context.Background(), f.rdb, lease, 0)
	if err != nil || a.Position != 0 {
		t.Fatalf("b after a's deadline: %+v, %v; want the head", a, err)
	}
	f.assertLine("b")
}

// A waiter sleeps at most the lock's TTL while it is held, and at most a
// heartbeat, so that the head keeps its deadline fresh.
func TestPause(t *testing.T) {
	w := New(nil, name, wait, nil).Waiter("w")
	heartbeat := wait / 3
	for _, c := range []struct {
		a    Attempt
		want time.Duration
	}{
		{Attempt{Position: 2, TTL: 5 * time.Second}, 5 * time.Second},
		{Attempt{Position: 2, TTL: time.Hour}, heartbeat},
		{Attempt{Position: 0, TTL: 0}, time.Millisecond},
		{Attempt{Position: 1, TTL: 0}, freeRecheck},
		{Attempt{Position: 1, TTL: -1}, heartbeat},
	} {
		if got := w.Pause(c.a); got != c.want {
			t.Errorf("Pause(%+v) = %v, want %v", c.a, got, c.want)
		}
	}
}
