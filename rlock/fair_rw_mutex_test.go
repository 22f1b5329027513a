package rlock

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/relock-go/relock/internal/keys"
	"github.com/relock-go/relock/queue"
)

// rwLine reads a fair read-write lock's line, head first.
func rwLine(t *testing.T, ctx context.Context, name string) []string {
	t.Helper()
	line, err := srv.Client(t).LRange(ctx, keys.RWQueue(name), 0, -1).Result()
	if err != nil {
		t.Fatal(err)
	}
	return line
}

// awaitRWLine waits until the fair read-write lock's line is exactly want.
func awaitRWLine(t *testing.T, ctx context.Context, name string, want ...string) {
	t.Helper()
	eventually(t, 5*time.Second, fmt.Sprintf("line of %q = %v", name, want), func() bool {
		return slices.Equal(rwLine(t, ctx, name), want)
	})
}

// fairRWWaiter is a goroutine that takes one side of a fair RWMutex, says
// so on granted, and releases it when told to.
type fairRWWaiter struct {
	rw      *RWMutex
	write   bool
	release chan struct{}
}

// entry is the waiter's entry in the line.
func (w *fairRWWaiter) entry() string {
	if w.write {
		return keys.WriteField(w.rw.Owner())
	}
	return w.rw.Owner()
}

func (w *fairRWWaiter) run(ctx context.Context, granted chan<- *fairRWWaiter, errs chan<- error) {
	lock, unlock := w.rw.RLock, w.rw.RUnlock
	if w.write {
		lock, unlock = w.rw.Lock, w.rw.Unlock
	}
	if err := lock(ctx); err != nil {
		errs <- err
		return
	}
	granted <- w
	<-w.release
	if err := unlock(ctx); err != nil {
		errs <- err
	}
}

// A written fair lock, waited for by R1 R2 W1 R3 W2 R4 in that order, is
// granted to R1 and R2 together, then W1, R3, W2, R4: the readers at the
// head go in together, and a reader behind a waiting writer waits for it
// although the lock is read; every grant comes by wake-up, well within the
// 30 s lease and the heartbeat.
func TestFairRWMutexGrantsInArrivalOrder(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	opts := []Option{WithFairWaitTimeout(time.Minute)}
	holder := newClient(t, rdb, opts...).NewFairRWMutex("rw")
	if err := holder.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	clients := []*Client{newClient(t, srv.Client(t), opts...), newClient(t, srv.Client(t), opts...)}
	granted := make(chan *fairRWWaiter, 6)
	errs := make(chan error, 6)
	var ws []*fairRWWaiter
	var line []string
	for i, write := range []bool{false, false, true, false, true, false} {
		w := &fairRWWaiter{rw: clients[i%2].NewFairRWMutex("rw"), write: write, release: make(chan struct{})}
		ws = append(ws, w)
		line = append(line, w.entry())
		go w.run(ctx, granted, errs)
		awaitRWLine(t, ctx, "rw", line...)
	}
	r1, r2, w1, r3, w2, r4 := ws[0], ws[1], ws[2], ws[3], ws[4], ws[5]

	// expect waits for exactly the grants want, in any order, and checks
	// the line left behind them.
	expect := func(left []*fairRWWaiter, want ...*fairRWWaiter) {
		t.Helper()
		for range want {
			select {
			case w := <-granted:
				if !slices.Contains(want, w) {
					t.Fatalf("granted %s, want one of %d others", w.entry(), len(want))
				}
			case err := <-errs:
				t.Fatal(err)
			case <-time.After(5 * time.Second):
				t.Fatal("a waiter whose turn came was not woken")
			}
		}
		var entries []string
		for _, w := range left {
			entries = append(entries, w.entry())
		}
		if got := rwLine(t, ctx, "rw"); !slices.Equal(got, entries) {
			t.Fatalf("line %v, want %v", got, entries)
		}
	}
	mustUnlock(t, holder)
	expect([]*fairRWWaiter{w1, r3, w2, r4}, r1, r2)
	// A newcomer reader queues behind the waiting writer too.
	if ok, err := clients[0].NewFairRWMutex("rw").TryRLock(ctx, 0, 0); ok || err != nil {
		t.Fatalf("a newcomer read ahead of a waiting writer: %v, %v", ok, err)
	}
	close(r1.release)
	close(r2.release)
	expect([]*fairRWWaiter{r3, w2, r4}, w1)
	close(w1.release)
	expect([]*fairRWWaiter{w2, r4}, r3)
	close(r3.release)
	expect([]*fairRWWaiter{r4}, w2)
	close(w2.release)
	expect(nil, r4)
	close(r4.release)
	eventually(t, 5*time.Second, "the lock and its line gone", func() bool {
		return rdb.Exists(ctx, "rw", keys.RWQueue("rw"), keys.RWTimeout("rw")).Val() == 0
	})
}

// A waiter that gives up leaves the line, and the writer behind a reader
// that gave up is woken when the readers holding the lock leave.
func TestFairRWMutexGivingUpLeavesLine(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	c := newClient(t, rdb, WithFairWaitTimeout(time.Minute))
	reader := c.NewFairRWMutex("rw")
	if err := reader.RLock(ctx); err != nil {
		t.Fatal(err)
	}
	writer := c.NewFairRWMutex("rw")
	wrote := make(chan error, 1)
	go func() { wrote <- writer.Lock(ctx) }()
	awaitRWLine(t, ctx, "rw", keys.WriteField(writer.Owner()))

	late := c.NewFairRWMutex("rw")
	if ok, err := late.TryRLock(ctx, 50*time.Millisecond, 0); ok || err != nil {
		t.Fatalf("TryRLock behind a waiting writer = %v, %v", ok, err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	go func() {
		// Cancel once the reader is queued behind the writer.
		defer cancel()
		for cancelled.Err() == nil && rdb.LLen(ctx, keys.RWQueue("rw")).Val() < 2 {
			time.Sleep(time.Millisecond)
		}
	}()
	if err := late.RLock(cancelled); !errors.Is(err, context.Canceled) {
		t.Fatalf("RLock with its ctx cancelled = %v", err)
	}
	if got := rwLine(t, ctx, "rw"); !slices.Equal(got, []string{keys.WriteField(writer.Owner())}) {
		t.Fatalf("line after the readers gave up: %v", got)
	}
	if err := reader.RUnlock(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-wrote:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the writer was not woken by the last read release")
	}
	mustUnlock(t, writer)
}

// A writer that died in the line (queued, no longer listening) is taken
// out when its turn comes: the reader behind it gets the lock at once, not
// after the 5-minute wait timeout.
func TestFairRWMutexDeadWaiterEvictedOnItsTurn(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	c := newClient(t, rdb)
	holder := c.NewFairRWMutex("rw")
	if err := holder.RLock(ctx); err != nil {
		t.Fatal(err)
	}
	dead := queue.NewRW(rdb, "rw", DefaultFairWaitTimeout, publishCmd).Place("dead:1:write")
	if a, err := dead.Attempt(ctx, rdb, time.Minute, 0); err != nil || a.Position != 0 {
		t.Fatalf("dead writer: %+v %v", a, err)
	}
	reader := c.NewFairRWMutex("rw")
	read := make(chan error, 1)
	go func() { read <- reader.RLock(ctx) }()
	awaitRWLine(t, ctx, "rw", "dead:1:write", reader.Owner())
	if err := holder.RUnlock(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-read:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the reader behind a dead writer was not woken")
	}
	if got := rwLine(t, ctx, "rw"); len(got) != 0 {
		t.Fatalf("line after the dead writer's turn: %v", got)
	}
	if err := reader.RUnlock(ctx); err != nil {
		t.Fatal(err)
	}
}
