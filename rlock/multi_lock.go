package rlock

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"
)

// MultiLock holds a set of locks all at once or none of them: Redisson's
// RMultiLock. Its members may live on different Redis servers, Cluster
// slots or Clients, and be of different kinds (Mutex, FairMutex,
// FencedMutex). Built with NewRedLock, it is held when a majority of its
// members is (see NewRedLock).
//
// Each acquisition of the set acquires every member once, through the
// member's handle, so a set shared by goroutines excludes them as its
// members' handles do (as sync.Mutex): locking the set while another
// goroutine holds it waits, and TryLock with no wait returns false. It has
// no Reenter: re-enter a member through its own handle. Each Unlock
// releases one acquisition of each. Ownership belongs to the *MultiLock
// through its members' owners, and its methods are safe for concurrent use.
// A member should not be locked on its own while the set uses it.
//
// A first attempt goes to every member at once (one round trip when all
// are free); then the members are taken in one canonical order, by lock
// name, then client id, each waiting through its own pub/sub, never by
// polling, and the set waits for a member only while every member it holds
// sorts strictly below it. So two sets over overlapping locks, in any
// process, cannot deadlock (code that holds a lock on its own while it
// locks a set must keep to the same order). When one member cannot be had
// (wait elapsed, ctx ended, Redis error), every member taken so far is
// released before the call returns, whatever ctx: no partial set is left
// held. With a fixed lease, the set is granted only when all members are
// held at once, and starts over when one expired meanwhile: give a lease
// well above the set's wait. docs/lock-kinds.md ("Multi-lock and quorum")
// tells how the order is kept.
type MultiLock struct {
	members []Member // canonical order
	quorum  bool     // a RedLock: need of the members suffice
	need    int
	err     error  // why the set is unusable; nil when usable
	name    string // the members' names, naming the set in errors

	mu       sync.Mutex
	acquired []setAcquisition // outermost first
	watch    *setWatch        // Lost of the outermost acquisition
}

// setAcquisition is one successful acquisition of a set: the members it holds,
// and those whose attempt failed with an error and that may have been
// taken all the same (a lost reply), released on a best-effort basis.
type setAcquisition struct{ held, unsure []Member }

// NewMultiLock returns a lock over every one of members, acquired all or
// nothing. Its members must be distinct locks: a name may appear twice only
// on different Redis deployments. An unusable set yields a MultiLock whose
// every operation returns an error wrapping ErrInvalidSet or
// ErrInvalidName.
func NewMultiLock(members ...Member) *MultiLock {
	l := &MultiLock{need: len(members), name: setName(members)}
	l.members, l.err = canonical(members, false)
	return l
}

// canonical checks members and returns them sorted by name, then client
// id. With distinct, no two may share a Client or a go-redis client.
func canonical(members []Member, distinct bool) ([]Member, error) {
	if len(members) == 0 {
		return nil, fmt.Errorf("%w: no members", ErrInvalidSet)
	}
	sorted := make([]Member, len(members))
	for i, m := range members {
		if nilMember(m) || m.base() == nil {
			return nil, fmt.Errorf("%w: member %d is nil", ErrInvalidSet, i)
		}
		if err := checkName(m.Name()); err != nil {
			return nil, fmt.Errorf("member %d: %w", i, err)
		}
		sorted[i] = m
	}
	slices.SortStableFunc(sorted, func(a, b Member) int {
		return cmp.Or(cmp.Compare(a.Name(), b.Name()), cmp.Compare(a.base().c.ID(), b.base().c.ID()))
	})
	for i, a := range sorted {
		for _, b := range sorted[i+1:] {
			oa, ob := a.base(), b.base()
			sameRedis := oa.c == ob.c || sameClient(oa.c.rdb, ob.c.rdb)
			switch {
			case sameRedis && a.Name() == b.Name():
				return nil, fmt.Errorf("%w: lock %q named twice on one Redis", ErrInvalidSet, a.Name())
			case sameRedis && distinct:
				return nil, fmt.Errorf("%w: %q and %q share a Redis: a quorum needs independent masters", ErrInvalidSet, a.Name(), b.Name())
			}
		}
	}
	return sorted, nil
}

// setName names a set by its members' names, sorted.
func setName(ms []Member) string {
	var names []string
	for _, m := range ms {
		if !nilMember(m) && m.base() != nil {
			names = append(names, m.Name())
		}
	}
	slices.Sort(names)
	return "[" + strings.Join(names, " ") + "]"
}

// sameClient reports whether a and b are one go-redis client.
func sameClient(a, b any) bool {
	ta, tb := reflect.TypeOf(a), reflect.TypeOf(b)
	return ta == tb && ta.Comparable() && a == b
}

// nilMember reports whether m is nil or a nil pointer.
func nilMember(m Member) bool {
	if m == nil {
		return true
	}
	v := reflect.ValueOf(m)
	return v.Kind() == reflect.Pointer && v.IsNil()
}

// Lock acquires the set, waiting as long as it takes or until ctx ends,
// and returns ctx.Err() then, holding nothing. Each member gets the
// watchdog timeout of its Client as lease, renewed until Unlock.
func (l *MultiLock) Lock(ctx context.Context) error {
	_, err := l.acquire(ctx, noDeadline, 0)
	return opError("lock", l.name, err)
}

// LockWithLease acquires the set like Lock, but every member with the
// fixed lease, which nothing renews. A lease of 0 (Lock is the call
// without one), a negative one or one below 1ms is an error wrapping
// ErrInvalidDuration.
func (l *MultiLock) LockWithLease(ctx context.Context, lease time.Duration) error {
	if err := checkLease(lease); err != nil {
		return opError("lock", l.name, err)
	}
	_, err := l.acquire(ctx, noDeadline, lease)
	return opError("lock", l.name, err)
}

// TryLock acquires the set if it can within wait, a deadline for the whole
// set: wait 0 is a single attempt at each member. A positive lease is fixed
// for every member; lease 0 lets their watchdogs keep them. It returns
// (true, nil) when the set is held, (false, nil) when wait elapsed first,
// (false, ctx.Err()) when ctx ended first and (false, err) on a member's
// error; unless it returns true, it holds no member. A negative wait or
// lease, or a lease below 1ms, is an error wrapping ErrInvalidDuration.
func (l *MultiLock) TryLock(ctx context.Context, wait, lease time.Duration) (bool, error) {
	if err := checkTry(wait, lease); err != nil {
		return false, opError("try lock", l.name, err)
	}
	ok, err := l.acquire(ctx, deadlineAfter(wait), lease)
	return ok, opError("try lock", l.name, err)
}

// Unlock releases one acquisition of every member the last acquisition of
// the set took, all at once, and returns every member's error joined
// (errors.Join). A member lost meanwhile reports ErrNotHeld, so the error
// wraps ErrNotHeld when any member was not held; when the set is not held
// at all, Unlock changes nothing and returns an error wrapping ErrNotHeld.
func (l *MultiLock) Unlock(ctx context.Context) error {
	if l.err != nil {
		return opError("unlock", l.name, l.err)
	}
	l.mu.Lock()
	n := len(l.acquired)
	if n == 0 {
		l.mu.Unlock()
		return opError("unlock", l.name, ErrNotHeld)
	}
	a := l.acquired[n-1]
	l.acquired = l.acquired[:n-1]
	var w *setWatch
	if n == 1 {
		w, l.watch = l.watch, nil
	}
	l.mu.Unlock()
	// Unsure members may or may not have been taken: their errors are
	// not reported.
	errs := releaseEach(ctx, append(slices.Clip(a.held), a.unsure...))[:len(a.held)]
	if w != nil {
		w.halt()
		// A member whose release could not be confirmed expires within
		// its lease: the set is lost then, unless a retry releases it.
		var pending []Member
		for i, err := range errs {
			if err != nil && !errors.Is(err, ErrNotHeld) {
				pending = append(pending, a.held[i])
			}
		}
		w.endWith(pending)
	}
	return errors.Join(errs...)
}

// Lost returns a channel that is closed when the set stops being held
// without Unlock: a member is lost (see Mutex.Lost), or for a RedLock, so
// many members that fewer than a majority remain. It watches the members
// the outermost acquisition took. When the set is not held, Lost returns a
// closed channel; it is never nil.
func (l *MultiLock) Lost() <-chan struct{} {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.watch == nil {
		return closedChan
	}
	return l.watch.lost
}

// Context returns a copy of parent that is cancelled when the set stops
// being held: lost as Lost reports (context.Cause is ErrLost) or fully
// released by Unlock (ErrNotHeld), or when parent ends or cancel is
// called. When the set is not held, the context is already cancelled with
// ErrNotHeld.
func (l *MultiLock) Context(parent context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(parent)
	l.mu.Lock()
	w := l.watch
	l.mu.Unlock()
	if w == nil {
		cancel(ErrNotHeld)
		return ctx, func() {}
	}
	stop := w.onEnd(cancel)
	return ctx, func() {
		stop()
		cancel(context.Canceled)
	}
}

// acquire takes the set by deadline (see deadlineAfter).
func (l *MultiLock) acquire(ctx context.Context, deadline time.Time, lease time.Duration) (bool, error) {
	if l.err != nil {
		return false, l.err
	}
	if err := ctx.Err(); err != nil {
		return false, err
	}
	take := l.acquireAll
	if l.quorum {
		take = l.acquireQuorum
	}
	a, ok, err := take(ctx, deadline, lease)
	if !ok || err != nil {
		return false, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.watch != nil && l.watch.isLost() {
		// The earlier acquisitions are gone; this one starts afresh.
		l.watch.stop()
		l.acquired, l.watch = nil, nil
	}
	if l.watch == nil {
		l.watch = newSetWatch(a.held, l.need)
	}
	l.acquired = append(l.acquired, a)
	return true, nil
}
