package rlock

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/relock-go/relock/internal/keys"
)

func TestMultiLockCancelledMidWaitLeavesNothingHeld(t *testing.T) {
	rdb1, rdb2, c1, c2 := twoServers(t)
	ctx := ctxT(t)
	blocker := newClient(t, rdb2).NewMutex("c")
	if err := blocker.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	a, b := c1.NewMutex("a"), c1.NewFairMutex("b")
	l := NewMultiLock(a, b, c2.NewMutex("c"))
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- l.Lock(wctx) }()

	// Waiting for c while holding a and b.
	subscribed(t, rdb2, "c")
	wantHolders(t, rdb1, "a", a.Owner())
	wantHolders(t, rdb1, "b", b.Owner())
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Lock = %v, want context.Canceled", err)
	}
	wantHolders(t, rdb1, "a")
	wantHolders(t, rdb1, "b")
	wantHolders(t, rdb2, "c", blocker.Owner())
	ch := keys.Channel("c")
	eventually(t, 5*time.Second, "waiter unsubscribed", func() bool {
		return rdb2.PubSubNumSub(ctx, ch).Val()[ch] == 0
	})
	if err := l.Unlock(ctx); !errors.Is(err, ErrNotHeld) {
		t.Fatalf("Unlock after a cancelled Lock = %v, want ErrNotHeld", err)
	}
}

func TestMultiLockMemberErrorReleasesTheOthers(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	dead := quickRedis(t, stoppedServer(t))
	a := newClient(t, rdb).NewMutex("a")
	l := NewMultiLock(a, newClient(t, dead).NewMutex("z"))
	for _, wait := range []time.Duration{0, time.Second} {
		ok, err := l.TryLock(ctx, wait, 0)
		if ok || err == nil {
			t.Fatalf("TryLock with a member down = %v, %v; want its error", ok, err)
		}
		wantHolders(t, rdb, "a")
	}
}

func TestMultiLockUnlockReportsEveryMemberError(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	c := newClient(t, rdb)
	a, b, x := c.NewMutex("a"), c.NewMutex("b"), c.NewMutex("c")
	l := NewMultiLock(a, b, x)
	if err := l.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"a", "c"} {
		if ok, err := c.NewMutex(name).ForceUnlock(ctx); !ok || err != nil {
			t.Fatalf("ForceUnlock %s = %v, %v", name, ok, err)
		}
	}
	err := l.Unlock(ctx)
	if !errors.Is(err, ErrNotHeld) || !strings.Contains(err.Error(), `"a"`) || !strings.Contains(err.Error(), `"c"`) {
		t.Fatalf("Unlock = %v, want ErrNotHeld for a and c", err)
	}
	wantHolders(t, rdb, "b")
}

func TestMultiLockLostWhenAMemberLeaseRunsOut(t *testing.T) {
	rdb1, rdb2, c1, c2 := twoServers(t)
	ctx := ctxT(t)
	l := NewMultiLock(c1.NewMutex("a"), c2.NewMutex("b"))
	if err := l.LockWithLease(ctx, 200*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	select {
	case <-l.Lost():
	case <-time.After(5 * time.Second):
		t.Fatal("Lost not closed after the lease ran out")
	}
	// Lost closes no later than Redis expires the members.
	eventually(t, 5*time.Second, "members expired", func() bool {
		return rdb1.Exists(ctx, "a").Val()+rdb2.Exists(ctx, "b").Val() == 0
	})
	if err := l.Unlock(ctx); !errors.Is(err, ErrNotHeld) {
		t.Fatalf("Unlock of a lost set = %v, want ErrNotHeld", err)
	}
}

func TestMultiLockRejectsUnusableSets(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	c, other := newClient(t, rdb), newClient(t, rdb)
	var nilMutex *Mutex
	var nilFenced *FencedMutex
	for name, tc := range map[string]struct {
		l    *MultiLock
		want error
	}{
		"empty":                   {NewMultiLock(), ErrInvalidSet},
		"nil":                     {NewMultiLock(c.NewMutex("a"), nil), ErrInvalidSet},
		"nil pointer":             {NewMultiLock(c.NewMutex("a"), nilMutex), ErrInvalidSet},
		"nil fenced":              {NewMultiLock(nilFenced.Member()), ErrInvalidSet},
		"empty name":              {NewMultiLock(c.NewMutex("a"), c.NewMutex("")), ErrInvalidName},
		"one name twice":          {NewMultiLock(c.NewMutex("a"), c.NewFairMutex("a")), ErrInvalidSet},
		"one name on one Redis":   {NewMultiLock(c.NewMutex("a"), other.NewMutex("a")), ErrInvalidSet},
		"red lock on one Redis":   {NewRedLock(c.NewMutex("a"), other.NewMutex("b"), c.NewMutex("c")), ErrInvalidSet},
		"red lock with no member": {NewRedLock(), ErrInvalidSet},
	} {
		for op, err := range map[string]error{
			"Lock":          tc.l.Lock(ctx),
			"TryLock":       second(tc.l.TryLock(ctx, 0, 0)),
			"LockWithLease": tc.l.LockWithLease(ctx, time.Second),
			"Unlock":        tc.l.Unlock(ctx),
		} {
			if !errors.Is(err, tc.want) {
				t.Errorf("%s: %s = %v, want %v", name, op, err, tc.want)
			}
		}
	}
	l := NewMultiLock(c.NewMutex("a"))
	if _, err := l.TryLock(ctx, -time.Second, 0); err == nil {
		t.Error("negative wait accepted")
	}
	if err := l.LockWithLease(ctx, 0); err == nil {
		t.Error("zero fixed lease accepted")
	}
	if n, _ := rdb.Exists(ctx, "a").Result(); n != 0 {
		t.Error("an unusable set took a lock")
	}
}
