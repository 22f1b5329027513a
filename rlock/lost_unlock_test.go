package rlock

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"
)

// Once Lost has closed, the handle holds nothing, even in the margin before
// Redis expires the key: Unlock and Reenter report ErrNotHeld, and the next
// Lock releases the lapsed hold first, so it starts a fresh one with a new
// token.
func TestUnlockAfterLostIsNotHeldAndNextLockStartsFresh(t *testing.T) {
	inBubble(t, func(t *testing.T, mr *miniredis.Miniredis, rdb *redis.Client) {
		ctx := context.Background()
		c, err := New(rdb)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		f := c.NewFencedMutex("lapsed")
		tok1, err := f.LockWithLease(ctx, 50*time.Millisecond)
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Reenter(ctx); err != nil {
			t.Fatal(err)
		}
		<-f.Lost()
		if !mr.Exists("lapsed") {
			t.Fatal("the key expired before Lost closed")
		}
		if err := f.Unlock(ctx); !errors.Is(err, ErrNotHeld) {
			t.Fatalf("Unlock after Lost = %v, want ErrNotHeld", err)
		}
		if err := f.Reenter(ctx); !errors.Is(err, ErrNotHeld) {
			t.Fatalf("Reenter after Lost = %v, want ErrNotHeld", err)
		}
		tok2, err := f.Lock(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if tok2 <= tok1 {
			t.Errorf("token after the lapsed hold = %d, want above %d", tok2, tok1)
		}
		if n, _ := f.HoldCount(ctx); n != 1 {
			t.Errorf("HoldCount of the fresh hold = %d, want 1", n)
		}
		if err := f.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
		if mr.Exists("lapsed") {
			t.Error("lock left behind")
		}
	})
}

// The reported case on a real server: a fixed lease, Lost, then Unlock.
func TestUnlockAfterLostOnRedis(t *testing.T) {
	c := newClient(t, newRedis(t))
	ctx := ctxT(t)
	m := c.NewMutex("lapsed")
	for range 3 {
		if err := m.LockWithLease(ctx, 300*time.Millisecond); err != nil {
			t.Fatal(err)
		}
		<-m.Lost()
		if err := m.Unlock(ctx); !errors.Is(err, ErrNotHeld) {
			t.Fatalf("Unlock after Lost = %v, want ErrNotHeld", err)
		}
	}
}
