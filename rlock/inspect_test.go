package rlock

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/internal/keys"
)

// mustInspect inspects the lock name and fails the test on error.
func mustInspect(t *testing.T, c *Client, name string) LockInfo {
	t.Helper()
	info, err := c.Inspect(context.Background(), name)
	if err != nil {
		t.Fatalf("Inspect(%q): %v", name, err)
	}
	return info
}

// queueFair locks the fair lock name with a new FairMutex of c, then has n
// more FairMutexes of c queue behind it, in this order, each locking in a
// goroutine (with ctx) whose outcome comes on its channel in got.
func queueFair(t *testing.T, ctx context.Context, c *Client, rdb *redis.Client, name string, n int) (holder *FairMutex, waiters []*FairMutex, got []<-chan lockResult) {
	t.Helper()
	holder = c.NewFairMutex(name)
	if err := holder.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	var line []string
	for range n {
		w := c.NewFairMutex(name)
		got = append(got, lockAsync(ctx, w))
		waiters, line = append(waiters, w), append(line, w.Owner())
		awaitQueue(t, rdb, name, line...)
	}
	return holder, waiters, got
}

// A reentrant Mutex hold shows its owner, client, count and TTL, in Redis
// and in the Client's activity; a waiter shows in both too while it waits.
func TestInspectMutexHolderAndWaiter(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	c := newClient(t, rdb)
	const name, lease = "inspect:mutex", 5 * time.Second
	m := c.NewMutex(name)
	if err := m.LockWithLease(ctx, lease); err != nil {
		t.Fatal(err)
	}
	if err := m.Reenter(ctx); err != nil {
		t.Fatal(err)
	}
	info := mustInspect(t, c, name)
	want := Holder{Owner: m.Owner(), Client: c.ID(), Count: 2}
	if info.Name != name || info.Kind != KindMutex || !info.Held || info.Mode != "" || info.Token != 0 || len(info.Queue) != 0 {
		t.Errorf("Inspect = %+v, want a held mutex", info)
	}
	if !slices.Equal(info.Holders, []Holder{want}) {
		t.Errorf("Holders = %+v, want [%+v]", info.Holders, want)
	}
	if info.TTL <= 0 || info.TTL > lease {
		t.Errorf("TTL = %v, want in (0, %v]", info.TTL, lease)
	}
	if hs := info.Local.Holds; len(hs) != 1 || hs[0].Owner != m.Owner() || hs[0].Count != 2 || len(info.Local.Waiters) != 0 {
		t.Errorf("Local = %+v, want the one hold, count 2", info.Local)
	}

	w := c.NewMutex(name)
	done := make(chan error, 1)
	go func() { done <- w.Lock(ctx) }()
	eventually(t, 5*time.Second, "the waiter seen waiting and subscribed", func() bool {
		info = mustInspect(t, c, name)
		return len(info.Local.Waiters) == 1 && info.Subscribers >= 1
	})
	if got := info.Local.Waiters[0]; got.Owner != w.Owner() || got.Kind != KindMutex {
		t.Errorf("Local.Waiters = %+v, want %s", info.Local.Waiters, w.Owner())
	}
	mustUnlock(t, m)
	mustUnlock(t, m)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	mustUnlock(t, w)
}

// A fair lock's line shows in order, with growing deadlines, its relock
// waiters marked so, and each waiter's own channel counted.
func TestInspectFairMutexQueue(t *testing.T) {
	c, rdb := fairClient(t)
	ctx := ctxT(t)
	const name = "inspect:fair"
	holder, ws, got := queueFair(t, ctx, c, rdb, name, 2)
	w1, w2 := ws[0], ws[1]

	info := mustInspect(t, c, name)
	if info.Kind != KindFairMutex || !info.Held || len(info.Holders) != 1 || info.Holders[0].Owner != holder.Owner() {
		t.Errorf("Inspect = %+v, want a fair lock held by %s", info, holder.Owner())
	}
	q := info.Queue
	if len(q) != 2 || q[0].Owner != w1.Owner() || q[1].Owner != w2.Owner() {
		t.Fatalf("Queue = %+v, want %s then %s", q, w1.Owner(), w2.Owner())
	}
	if !q[0].Relock || !q[1].Relock || q[0].Mode != "" {
		t.Errorf("Queue = %+v, want relock waiters", q)
	}
	if !q[0].Deadline.After(time.Now().Add(-time.Second)) || !q[1].Deadline.After(q[0].Deadline) {
		t.Errorf("deadlines %v, %v: want future and increasing", q[0].Deadline, q[1].Deadline)
	}
	if info.Subscribers < 2 {
		t.Errorf("Subscribers = %d, want each waiter's channel counted", info.Subscribers)
	}
	if len(info.Local.Waiters) != 2 {
		t.Errorf("Local.Waiters = %+v, want both waiters", info.Local.Waiters)
	}
	mustUnlock(t, holder)
	awaitLock(t, got[0], 2*time.Second)
	mustUnlock(t, w1)
	awaitLock(t, got[1], 2*time.Second)
	mustUnlock(t, w2)
}

// Readers show as read holders with their own leases; a writer as the
// write holder, under its owner id.
func TestInspectRWMutexReadersAndWriter(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	c := newClient(t, rdb)
	const name = "inspect:rw"
	r1, r2 := c.NewRWMutex(name), c.NewRWMutex(name)
	for _, r := range []*RWMutex{r1, r2} {
		if err := r.RLock(ctx); err != nil {
			t.Fatal(err)
		}
	}
	info := mustInspect(t, c, name)
	if info.Kind != KindRWMutex || info.Mode != ModeRead || len(info.Holders) != 2 {
		t.Fatalf("Inspect = %+v, want a read lock with 2 holders", info)
	}
	for _, h := range info.Holders {
		if h.Mode != ModeRead || h.Count != 1 || h.Client != c.ID() || h.TTL <= 0 || h.TTL > c.opts.watchdogTimeout {
			t.Errorf("reader %+v, want read mode, count 1, a lease", h)
		}
	}
	if err := r1.RUnlock(ctx); err != nil {
		t.Fatal(err)
	}
	if err := r2.RUnlock(ctx); err != nil {
		t.Fatal(err)
	}

	w := c.NewRWMutex(name)
	if err := w.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	info = mustInspect(t, c, name)
	want := []Holder{{Owner: w.Owner(), Client: c.ID(), Count: 1, Mode: ModeWrite}}
	if info.Kind != KindRWMutex || info.Mode != ModeWrite || !slices.Equal(info.Holders, want) {
		t.Errorf("Inspect = %+v, want the writer %+v", info, want)
	}
	if err := w.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
}

// A fair read-write lock's line shows its readers and writers in order.
func TestInspectFairRWMutexLine(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	c := newClient(t, rdb)
	const name = "inspect:fair-rw"
	holder := c.NewFairRWMutex(name)
	if err := holder.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	// Each waiter releases as soon as it is granted.
	granted, errs := make(chan *fairRWWaiter, 2), make(chan error, 2)
	var line []string
	var ws []*fairRWWaiter
	for _, write := range []bool{false, true} {
		w := &fairRWWaiter{rw: c.NewFairRWMutex(name), write: write, release: make(chan struct{})}
		close(w.release)
		go w.run(ctx, granted, errs)
		ws, line = append(ws, w), append(line, w.entry())
		awaitRWLine(t, ctx, name, line...)
	}
	reader, writer := ws[0].rw, ws[1].rw

	info := mustInspect(t, c, name)
	q := info.Queue
	if info.Kind != KindFairRWMutex || info.Mode != ModeWrite || len(q) != 2 {
		t.Fatalf("Inspect = %+v, want a written fair read-write lock with 2 waiters", info)
	}
	if q[0].Owner != reader.Owner() || q[0].Mode != ModeRead || q[1].Owner != writer.Owner() || q[1].Mode != ModeWrite || !q[0].Relock || !q[1].Relock {
		t.Errorf("Queue = %+v, want the reader then the writer", q)
	}
	if info.Subscribers < 2 {
		t.Errorf("Subscribers = %d, want each waiter's channel counted", info.Subscribers)
	}
	mustUnlock(t, holder)
	for _, want := range ws {
		select {
		case w := <-granted:
			if w != want {
				t.Fatalf("granted %s, want %s", w.entry(), want.entry())
			}
		case err := <-errs:
			t.Fatal(err)
		}
	}
	eventually(t, 5*time.Second, "the lock released by its last waiter", func() bool {
		return rdb.Exists(ctx, name).Val() == 0
	})
}

// A fenced lock shows its last token, held or not.
func TestInspectFencedMutexToken(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	c := newClient(t, rdb)
	const name = "inspect:fenced"
	f := c.NewFencedMutex(name)
	token, err := f.Lock(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info := mustInspect(t, c, name); info.Kind != KindFencedMutex || !info.Held || info.Token != token {
		t.Errorf("Inspect = %+v, want a held fenced lock with token %d", info, token)
	}
	mustUnlock(t, f)
	if info := mustInspect(t, c, name); info.Kind != KindFencedMutex || info.Held || info.TTL != 0 || info.Token != token {
		t.Errorf("Inspect = %+v, want a free fenced lock with token %d", info, token)
	}
}

// Inspect refuses keys that are not locks and bad names, and reports a
// name with nothing in Redis as free and of no kind.
func TestInspectWrongTypeInvalidNameAndFree(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	c := newClient(t, rdb)
	if err := rdb.Set(ctx, "inspect:string", "v", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if err := rdb.HSet(ctx, "inspect:hash", "a", "b").Err(); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"inspect:string", "inspect:hash"} {
		_, err := c.Inspect(ctx, name)
		var e *Error
		if !errors.Is(err, ErrWrongType) || !errors.As(err, &e) || e.Op != "inspect" || e.Name != name {
			t.Errorf("Inspect(%q) = %v, want an inspect error wrapping ErrWrongType", name, err)
		}
	}
	if _, err := c.Inspect(ctx, ""); !errors.Is(err, ErrInvalidName) {
		t.Errorf("Inspect(\"\") = %v, want ErrInvalidName", err)
	}
	info := mustInspect(t, c, "inspect:free")
	if info.Held || info.Kind != "" || info.TTL != 0 || len(info.Holders) != 0 || info.Subscribers != 0 {
		t.Errorf("Inspect of a free name = %+v, want nothing", info)
	}
}

// Locks lists the lock hashes matching the pattern, of every kind, and
// leaves out other keys, fair locks' relock waiters hashes among them.
func TestLocksFindsOnlyLockHashes(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	c := newClient(t, rdb)
	if err := c.NewMutex("locks:mutex").Lock(ctx); err != nil {
		t.Fatal(err)
	}
	if err := c.NewRWMutex("locks:rw").RLock(ctx); err != nil {
		t.Fatal(err)
	}
	if err := c.NewRWMutex("locks:written").Lock(ctx); err != nil {
		t.Fatal(err)
	}
	fair, waiters, got := queueFair(t, ctx, c, rdb, "locks:fair", 1)
	if err := c.NewMutex("other:mutex").Lock(ctx); err != nil {
		t.Fatal(err)
	}
	if err := rdb.HSet(ctx, "locks:plain", "a", "b").Err(); err != nil {
		t.Fatal(err)
	}
	if err := rdb.Set(ctx, "locks:string", "v", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if n := rdb.Exists(ctx, keys.FairWaiters("locks:fair")).Val(); n != 1 {
		t.Fatal("no relock waiters hash beside the fair lock")
	}
	// A relock waiters hash valued leases alone, as keys.FairWaiters has it.
	if err := rdb.HSet(ctx, keys.FairWaiters("locks:gone"), c.ID()+":9", "30000").Err(); err != nil {
		t.Fatal(err)
	}

	names, err := c.Locks(ctx, "locks:*")
	if want := []string{"locks:fair", "locks:mutex", "locks:rw", "locks:written"}; err != nil || !slices.Equal(names, want) {
		t.Errorf("Locks(locks:*) = %q, %v; want %q", names, err, want)
	}
	names, err = c.Locks(ctx, "")
	if want := []string{"locks:fair", "locks:mutex", "locks:rw", "locks:written", "other:mutex"}; err != nil || !slices.Equal(names, want) {
		t.Errorf("Locks(\"\") = %q, %v; want %q", names, err, want)
	}
	mustUnlock(t, fair)
	awaitLock(t, got[0], 2*time.Second)
	mustUnlock(t, waiters[0])
}
