package rlock

import (
	"context"
	"testing"
	"time"
)

// A FairMutex shared by 5 goroutines waits in Redis's queue as one owner,
// and Inspect's Local (this Client's Activity) lists the 5 goroutines that
// wait: the one whose acquisition is in Redis, and the 4 behind it in the
// handle, with the same owner and no attempt. They leave the list as they
// stop waiting.
func TestInspectListsEveryGoroutineOfASharedHandle(t *testing.T) {
	ctx := ctxT(t)
	rdb := newRedis(t)
	holder, c := newClient(t, rdb), newClient(t, rdb)
	const name = "shared:fair"
	if err := holder.NewFairMutex(name).Lock(ctx); err != nil {
		t.Fatal(err)
	}
	m := c.NewFairMutex(name)
	wctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 5)
	for range 5 {
		go func() { done <- m.Lock(wctx) }()
	}
	// (A fair acquisition's first attempt does not queue: the owner is in
	// the queue from its second.)
	var info LockInfo
	eventually(t, 5*time.Second, "the owner queued, 5 waiters listed", func() bool {
		info = mustInspect(t, c, name)
		return len(info.Queue) == 1 && len(info.Local.Waiters) == 5
	})
	if info.Queue[0].Owner != m.Owner() {
		t.Fatalf("queue %+v; want the shared handle's owner", info.Queue)
	}
	attempting := 0
	for _, w := range info.Local.Waiters {
		if w.Owner != m.Owner() || w.Kind != KindFairMutex || w.Name != name {
			t.Errorf("local waiter %+v; want one of %s", w, m.Owner())
		}
		if w.Attempts > 0 {
			attempting++
		}
	}
	if len(info.Local.Waiters) != 5 || attempting != 1 {
		t.Fatalf("local waiters %+v; want 5, one of them attempting", info.Local.Waiters)
	}
	cancel()
	for range 5 {
		<-done
	}
	if a := c.Activity(); len(a.Waiters) != 0 {
		t.Fatalf("waiters after the waits ended: %+v", a.Waiters)
	}
}
