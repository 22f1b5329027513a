package rlock

import (
	"context"
	"errors"
	"testing"
	"time"
)

// A key at a lock's name that is not a lock in Redisson's layout fails
// every acquisition and read at once with ErrWrongType, whatever its type:
// a hash whose values are not hold counts included. Nothing waits for it,
// and nothing writes to it.
func TestNotALockIsErrWrongTypeAtOnce(t *testing.T) {
	rdb := newRedis(t)
	c := newClient(t, rdb)
	ctx := ctxT(t)
	for name, set := range map[string]func(string) error{
		"hash":       func(k string) error { return rdb.HSet(ctx, k, "name", "alice").Err() },
		"zero count": func(k string) error { return rdb.HSet(ctx, k, "x:1", "0").Err() },
		"string":     func(k string) error { return rdb.Set(ctx, k, "v", 0).Err() },
		"list":       func(k string) error { return rdb.RPush(ctx, k, "v").Err() },
		"bad mode":   func(k string) error { return rdb.HSet(ctx, k, "mode", "both", "x:1", "1").Err() },
		"mode alone": func(k string) error { return rdb.HSet(ctx, k, "mode", "read").Err() },
	} {
		key := "user:profile:" + name
		if err := set(key); err != nil {
			t.Fatal(err)
		}
		before := rdb.Dump(ctx, key).Val()
		// Lock would wait until ctx ends if the key were taken for a lock.
		lctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		results := map[string]error{
			"Mutex.Lock":             c.NewMutex(key).Lock(lctx),
			"FairMutex.Lock":         c.NewFairMutex(key).Lock(lctx),
			"RWMutex.Lock":           c.NewRWMutex(key).Lock(lctx),
			"RWMutex.RLock":          c.NewRWMutex(key).RLock(lctx),
			"FairRWMutex.Lock":       c.NewFairRWMutex(key).Lock(lctx),
			"FairRWMutex.RLock":      c.NewFairRWMutex(key).RLock(lctx),
			"Mutex.TryLock":          second(c.NewMutex(key).TryLock(lctx, 0, 0)),
			"FairMutex.TryLock":      second(c.NewFairMutex(key).TryLock(lctx, 0, 0)),
			"Mutex.IsLocked":         second(c.NewMutex(key).IsLocked(lctx)),
			"Mutex.TTL":              second(c.NewMutex(key).TTL(lctx)),
			"RWMutex.IsLocked":       second(c.NewRWMutex(key).IsLocked(lctx)),
			"FencedMutex.Lock":       second(c.NewFencedMutex(key).Lock(lctx)),
			"FencedMutex.TryLock(0)": func() error { _, _, err := c.NewFencedMutex(key).TryLock(lctx, 0, 0); return err }(),
		}
		stillRunning := lctx.Err() == nil
		cancel()
		if !stillRunning {
			t.Errorf("%s: an operation waited until its ctx ended", name)
		}
		for op, err := range results {
			if !errors.Is(err, ErrWrongType) {
				t.Errorf("%s: %s = %v, want ErrWrongType", name, op, err)
			}
		}
		if after := rdb.Dump(ctx, key).Val(); after != before {
			t.Errorf("%s: the key was changed", name)
		}
	}
}

// Every kind still recognises its own locks and Redisson's: a read-write
// lock's hash (with its mode field) is a lock to IsLocked and to another
// RWMutex, which waits for it.
func TestLocksOfEveryKindAreNotWrongType(t *testing.T) {
	c := newClient(t, newRedis(t))
	ctx := ctxT(t)
	rw := c.NewRWMutex("rw")
	if err := rw.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	if ok, err := c.NewMutex("rw").IsLocked(ctx); !ok || err != nil {
		t.Errorf("IsLocked of a write-locked RWMutex = %v, %v; want true", ok, err)
	}
	if ok, err := c.NewRWMutex("rw").TryRLock(ctx, 0, 0); ok || err != nil {
		t.Errorf("TryRLock of a write-locked RWMutex = %v, %v; want false, nil", ok, err)
	}
	if err := rw.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	r1, r2 := c.NewRWMutex("rw"), c.NewRWMutex("rw")
	if err := r1.RLock(ctx); err != nil {
		t.Fatal(err)
	}
	if ok, err := r2.TryRLock(ctx, 0, 0); !ok || err != nil {
		t.Errorf("second reader's TryRLock = %v, %v; want true", ok, err)
	}
	m, other := c.NewMutex("m"), c.NewMutex("m")
	if err := m.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	if ok, err := other.TryLock(ctx, 0, 0); ok || err != nil {
		t.Errorf("TryLock of a held Mutex = %v, %v; want false, nil", ok, err)
	}
}
