package main

import (
	"context"
	"fmt"
	"time"

	"github.com/relock-go/relock/rlock"
)

// rwLockName is the lock of the read-write scene, which guards a price
// list read far more often than it is written.
const rwLockName = "catalog:price-list"

// readWrite has two services read the price list at once, a third wait to
// write until both leave and then exclude a reader, downgrade to a read
// lock by reading before it stops writing, and be refused an upgrade.
func (d *demo) readWrite(ctx context.Context) error {
	a, b, w := d.service(0), d.service(1), d.service(2)
	ra, rb, rw := a.locks.NewRWMutex(rwLockName), b.locks.NewRWMutex(rwLockName), w.locks.NewRWMutex(rwLockName)
	for _, r := range []struct {
		s *service
		m *rlock.RWMutex
	}{{a, ra}, {b, rb}} {
		if err := r.m.RLock(ctx); err != nil {
			return fmt.Errorf("%s: RLock: %w", r.s.name, err)
		}
		r.s.say("reads %s under RLock", rwLockName)
	}
	if err := d.expectMode(ctx, rw, "read"); err != nil {
		return err
	}
	d.tl.note("OK: two readers hold %s at once (mode %q)", rwLockName, "read")

	wrote := make(chan error, 1)
	asked := time.Now()
	go func() { wrote <- rw.Lock(ctx) }()
	w.say("asks for the write lock: it waits until every reader leaves")
	if err := sleep(ctx, d.cfg.Work); err != nil {
		return err
	}
	for _, r := range []struct {
		s *service
		m *rlock.RWMutex
	}{{a, ra}, {b, rb}} {
		d.tl.unlocking(r.s.name, "RUnlock")
		if err := r.m.RUnlock(ctx); err != nil {
			return fmt.Errorf("%s: RUnlock: %w", r.s.name, err)
		}
	}
	if err := <-wrote; err != nil {
		return fmt.Errorf("%s: Lock: %w", w.name, err)
	}
	w.say("is woken by the last reader's release and writes, %v after asking", roundSmall(time.Since(asked)))
	if ok, err := ra.TryRLock(ctx, 0, 0); ok || err != nil {
		return fmt.Errorf("%s: TryRLock while written = %v, %v; want false", a.name, ok, err)
	}
	a.say("TryRLock returns false: no reader while the write lock is held")

	if err := rw.RReenter(ctx); err != nil {
		return fmt.Errorf("%s: RReenter while writing: %w", w.name, err)
	}
	d.tl.unlocking(w.name, "re-enters as a reader (RReenter), then Unlock: a downgrade, it keeps reading")
	if err := rw.Unlock(ctx); err != nil {
		return fmt.Errorf("%s: Unlock: %w", w.name, err)
	}
	if err := d.expectMode(ctx, rw, "read"); err != nil {
		return err
	}
	if ok, err := rw.TryLock(ctx, 0, 0); ok || err != nil {
		return fmt.Errorf("%s: TryLock while reading = %v, %v; want false", w.name, ok, err)
	}
	w.say("asks to write again while its handle reads: TryLock returns false, as sync.RWMutex would")
	return rw.RUnlock(ctx)
}

// expectMode checks the mode of m's lock.
func (d *demo) expectMode(ctx context.Context, m *rlock.RWMutex, want string) error {
	mode, err := m.Mode(ctx)
	if err != nil {
		return err
	}
	if mode != want {
		return fmt.Errorf("%s has mode %q, want %q", m.Name(), mode, want)
	}
	return nil
}
