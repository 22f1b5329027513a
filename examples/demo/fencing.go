package main

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/relock-go/relock/rlock"
)

// fencedLockName is the lock of the fencing scene, which guards a record
// in a store that checks fencing tokens.
const fencedLockName = "inventory:sku-42:price"

// fencedStore stands for storage that takes a fencing token with every
// write, as a database would with a conditional update: it rejects a write
// whose token is lower than the highest it has seen.
type fencedStore struct {
	mu      sync.Mutex
	highest int64
	value   string
}

// write stores value if token is at least the highest token seen.
func (s *fencedStore) write(token int64, value string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if token < s.highest {
		return fmt.Errorf("token %d is stale: %d was seen", token, s.highest)
	}
	s.highest, s.value = token, value
	return nil
}

// fencing has a service take a FencedMutex with a fixed lease and stall
// past it, as in a long GC pause. Its lease runs out, another service takes
// the lock with a higher token and writes; when the stalled one resumes,
// still believing it holds the lock, the store rejects its write.
func (d *demo) fencing(ctx context.Context) error {
	stalled, next := d.service(2), d.service(3)
	lease := d.cfg.FencedLease
	var db fencedStore

	sm := stalled.locks.NewFencedMutex(fencedLockName)
	staleToken, err := sm.LockWithLease(ctx, lease)
	if err != nil {
		return err
	}
	stalled.say("acquires %s with LockWithLease(%v): fencing token %d", sm.Name(), lease, staleToken)
	stalled.say("computes a new price, then stalls (a long GC pause) and misses its lease running out")
	stallStart := time.Now()

	nm := next.locks.NewFencedMutex(fencedLockName)
	next.say("waits: %s is held by %s", nm.Name(), next.holder(ctx, nm))
	token, err := nm.Lock(ctx)
	if err != nil {
		return err
	}
	next.say("acquires it when the lease runs out, after %v: fencing token %d",
		time.Since(stallStart).Round(time.Millisecond), token)
	if token <= staleToken {
		_ = nm.Unlock(ctx)
		return fmt.Errorf("token %d after token %d: tokens must grow", token, staleToken)
	}
	if err := sleep(ctx, d.cfg.Work); err != nil { // its own update of the price
		_ = nm.Unlock(context.WithoutCancel(ctx))
		return err
	}
	if err := db.write(token, "12.50 by "+next.name); err != nil {
		_ = nm.Unlock(ctx)
		return fmt.Errorf("%s: write with the current token: %w", next.name, err)
	}
	next.say("writes price 12.50 with token %d: accepted", token)
	d.tl.unlocking(next.name, "unlocks")
	if err := nm.Unlock(ctx); err != nil {
		return fmt.Errorf("%s: %w", next.name, err)
	}

	stalled.say("resumes after %v, unaware that it lost the lock; writes price 9.99 with token %d",
		time.Since(stallStart).Round(time.Millisecond), staleToken)
	err = db.write(staleToken, "9.99 by "+stalled.name)
	if err == nil {
		stalled.say("FAIL: the store accepted a stale holder's write")
		return errors.New("the store accepted a write with a stale fencing token")
	}
	stalled.say("stale write rejected by the store: %v", err)
	if err := sm.Unlock(ctx); !errors.Is(err, rlock.ErrNotHeld) {
		return fmt.Errorf("unlock after the lease ran out: got %v, want ErrNotHeld", err)
	}
	d.tl.note("OK: the store holds %q: the lease could not stop the stalled holder, its token did", db.value)
	return nil
}
