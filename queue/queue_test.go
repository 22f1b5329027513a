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
	"github.com/relock-go/relock/test/testkit"
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
	mr, rdb := testkit.Miniredis(t)
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
// queues: a publish there counts a listener (see published for what is
// said).
func (f *fixture) listen(owner string) {
	f.t.Helper()
	ps := f.rdb.Subscribe(context.Background(), f.q.Channel(owner))
	if _, err := ps.Receive(context.Background()); err != nil {
		f.t.Fatal(err)
	}
	f.t.Cleanup(func() { _ = ps.Close() })
}

// queue makes a listening Place for owner attempt once, and checks that
// it was queued at pos.
func (f *fixture) queue(owner string, pos int) *Place {
	f.t.Helper()
	f.listen(owner)
	w := f.q.Place(owner)
	a, err := w.Attempt(context.Background(), f.rdb, lease, 0)
	if err != nil {
		f.t.Fatal(err)
	}
	if a.Acquired || a.Position != pos {
		f.t.Fatalf("%s's attempt: %+v, want queued at %d", owner, a, pos)
	}
	return w
}

// release releases owner's one hold.
func (f *fixture) release(owner string) scripts.Release {
	f.t.Helper()
	res, err := f.q.Release(context.Background(), scripts.Unlock{
		Owner: owner, Lease: lease, Record: keys.Records(name, owner),
		RecordTTL: time.Minute, Seq: 1, HoldCount: 1,
	})
	if err != nil {
		f.t.Fatal(err)
	}
	return res.Outcome
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

// published runs do and returns what it published on the lock's channel,
// relock's turn channel and the waiter channels of owners ("<channel> <message>", in order): the
// messages read on one connection until a marker published after do. The
// connection counts as a listener of those channels.
func (f *fixture) published(do func(), owners ...string) []string {
	f.t.Helper()
	ctx := context.Background()
	channels := []string{keys.Channel(name), keys.TurnChannel(name)}
	for _, o := range owners {
		channels = append(channels, f.q.Channel(o))
	}
	ps := f.rdb.Subscribe(ctx, channels...)
	defer ps.Close()
	for range channels {
		if _, err := ps.Receive(ctx); err != nil {
			f.t.Fatal(err)
		}
	}
	do()
	const marker = "end of test"
	if err := f.rdb.Publish(ctx, keys.Channel(name), marker).Err(); err != nil {
		f.t.Fatal(err)
	}
	var got []string
	for {
		m, err := ps.ReceiveMessage(ctx)
		if err != nil {
			f.t.Fatal(err)
		}
		if m.Payload == marker {
			return got
		}
		got = append(got, m.Channel+" "+m.Payload)
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
	a, err := f.q.Place("b").Attempt(context.Background(), f.rdb, lease, 0)
	if err != nil || a.Position != 1 || a.TTL != lease {
		t.Fatalf("b again: %+v, %v; want position 1 behind a lock with %v left", a, err, lease)
	}
}

// The last release grants the lock to a relock head inside the script:
// its field is written, it leaves the line, and it alone hears its grant
// (besides the turn announced to onlookers). Its claim confirms the grant
// once.
func TestReleaseGrantsTheHead(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.hold("holder")
	a := f.queue("a", 0)
	f.queue("b", 1)
	msgs := f.published(func() {
		if res := f.release("holder"); res != scripts.Released {
			t.Fatalf("release: %v, want Released", res)
		}
	}, "a", "b")
	want := []string{f.q.Channel("a") + " " + a.Grant(), keys.TurnChannel(name) + " turn:a"}
	if !slices.Equal(msgs, want) {
		t.Errorf("the release published %q, want %q", msgs, want)
	}
	if h := f.holders(); len(h) != 1 || h["a"] != "1" {
		t.Fatalf("lock after the release: %v, want a holding once", h)
	}
	if ttl := f.mr.TTL(name); ttl != lease {
		t.Errorf("granted lease %v, want %v", ttl, lease)
	}
	f.assertLine("b")
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
	dead := f.q.Place("dead")
	if _, err := dead.Attempt(context.Background(), f.rdb, lease, 0); err != nil {
		t.Fatal(err)
	}
	b := f.queue("b", 1)
	msgs := f.published(func() { f.release("holder") }, "b")
	if h := f.holders(); h["b"] != "1" || len(h) != 1 {
		t.Fatalf("lock after the release: %v, want b holding", h)
	}
	// The dead waiter's turn was announced, but nobody heard its grant.
	want := []string{keys.TurnChannel(name) + " turn:dead", f.q.Channel("b") + " " + b.Grant(), keys.TurnChannel(name) + " turn:b"}
	if !slices.Equal(msgs, want) {
		t.Errorf("the release published %q, want %q", msgs, want)
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
	// What Redisson's tryLock script writes for a waiter.
	f.rdb.RPush(ctx, keys.Queue(name), "java:1")
	f.rdb.ZAdd(ctx, keys.Timeout(name), redis.Z{Score: float64(f.now.Add(lease + wait).UnixMilli()), Member: "java:1"})
	msgs := f.published(func() {
		if res := f.release("holder"); res != scripts.Released {
			t.Fatalf("release: %v", res)
		}
	}, "java:1")
	want := []string{f.q.Channel("java:1") + " " + keys.UnlockMessage, keys.TurnChannel(name) + " turn:java:1"}
	if !slices.Equal(msgs, want) {
		t.Errorf("the release published %q, want %q", msgs, want)
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
	a := f.queue("a", 0)
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

// A waiter sleeps at most the lock's TTL while it is held, and at most a
// heartbeat, so that the head keeps its deadline fresh.
func TestPause(t *testing.T) {
	w := New(nil, name, wait, nil).Place("w")
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
