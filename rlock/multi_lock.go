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
	"sync/atomic"
	"time"
)

// ErrInvalidSet is returned by every operation of a MultiLock whose set of
// members is unusable: empty, with a nil member or a member with an empty
// name, naming one lock twice on one Redis, or, for a RedLock, with two
// members on one Redis.
var ErrInvalidSet = errors.New("invalid lock set")

// Member is one lock of a MultiLock's set: a *Mutex, a *FairMutex, or a
// *FencedMutex through FencedMutex.Member. A member keeps its own
// semantics (owner, reentrancy, lease, watchdog, waiting): the MultiLock
// only decides when to call it. Only this package's lock handles implement
// Member.
type Member interface {
	// Name is the lock's name.
	Name() string
	// Owner is the member's owner id.
	Owner() string
	// TryLock acquires the member alone, as Mutex.TryLock.
	TryLock(ctx context.Context, wait, lease time.Duration) (bool, error)
	// Unlock releases one acquisition of the member, as Mutex.Unlock.
	Unlock(ctx context.Context) error
	// Lost is the member's own, as Mutex.Lost.
	Lost() <-chan struct{}

	// acquire is TryLock without its argument checks; a negative wait has
	// no limit.
	acquire(ctx context.Context, wait, lease time.Duration) (bool, error)
	// base is the member's owner; nil for a view of a nil lock.
	base() *owner
}

func (o *owner) base() *owner { return o }

// leaseEnd is when the lease of this owner's hold is known to end, and the
// lease; zero when it does not hold the lock or has lost it.
func (o *owner) leaseEnd() (time.Time, time.Duration) {
	o.mu.Lock()
	h := o.hold
	o.mu.Unlock()
	if h == nil {
		return time.Time{}, 0
	}
	wd := o.c.wd
	wd.mu.Lock()
	defer wd.mu.Unlock()
	if h.gone {
		return time.Time{}, 0
	}
	return h.deadline, h.lease
}

// FencedMember is a FencedMutex as a Member of a MultiLock. Its TryLock
// reports success alone; Token returns the token of the latest acquisition
// made through this view.
type FencedMember struct {
	f     *FencedMutex
	token atomic.Int64
}

// Member returns f as a Member of a MultiLock; read the tokens granted
// through it with FencedMember.Token.
func (f *FencedMutex) Member() *FencedMember { return &FencedMember{f: f} }

// Token is the fencing token of the latest acquisition made through this
// view, by a MultiLock or its TryLock; 0 before the first.
func (m *FencedMember) Token() int64 { return m.token.Load() }

// Name is the lock's name.
func (m *FencedMember) Name() string { return m.f.Name() }

// Owner is the FencedMutex's owner id.
func (m *FencedMember) Owner() string { return m.f.Owner() }

// Lost is the FencedMutex's, as Mutex.Lost.
func (m *FencedMember) Lost() <-chan struct{} { return m.f.Lost() }

// TryLock acquires the lock as FencedMutex.TryLock does, keeping the token
// for Token.
func (m *FencedMember) TryLock(ctx context.Context, wait, lease time.Duration) (bool, error) {
	return tryLock(ctx, m.f.name, wait, lease, m.acquire)
}

// Unlock releases one acquisition, as FencedMutex.Unlock does.
func (m *FencedMember) Unlock(ctx context.Context) error { return m.f.Unlock(ctx) }

func (m *FencedMember) acquire(ctx context.Context, wait, lease time.Duration) (bool, error) {
	var token int64
	ok, err := m.f.acquirer(&token)(ctx, wait, lease)
	if ok {
		m.token.Store(token)
	}
	return ok, err
}

func (m *FencedMember) base() *owner {
	if m.f == nil {
		return nil
	}
	return &m.f.owner
}

// MultiLock holds a set of locks all at once or none of them: Redisson's
// RMultiLock. Its members may live on different Redis servers, Cluster
// slots or Clients, and be of different kinds (Mutex, FairMutex,
// FencedMutex). Built with NewRedLock, it is held when a majority of its
// members is (see NewRedLock).
//
// Each acquisition of the set acquires every member once, so reentrancy is
// the members': locking the set again re-enters each member, and each
// Unlock releases one acquisition of each. Ownership belongs to the
// *MultiLock through its members' owners, and its methods are safe for
// concurrent use. A member should not be locked on its own while the set
// uses it.
//
// # Order and waiting
//
// The set is acquired in one canonical order: by lock name, then by client
// id. A first attempt goes to every member at once, without waiting (one
// round trip when all are free). If one is busy, the members taken that
// sort after it are released, and the rest are taken in order, each
// waiting through its own pub/sub (TryLock with what is left of the set's
// wait), never by polling. The set waits for a member only while every
// member it holds sorts strictly below that member's name. Two sets over
// overlapping locks, in any process, then wait for each other in one
// direction only, so they cannot deadlock: a cycle of waits would need
// names that grow all the way round. (Code that holds a lock on its own
// while it locks a set must keep to the same order.) Redisson instead tries each member with a short wait and
// starts over when one times out; that needs no order, but under
// contention it can go round forever, and every timed-out try is a
// wake-up nobody asked for. Names compare as strings, which are the same
// in every process; client ids are random and only break ties between
// equal names on different Redis deployments. Before waiting for a member
// whose name equals a held one's, the set lets go of everything and waits
// for that member alone.
//
// When one member cannot be had (wait elapsed, ctx ended, Redis error),
// every member taken so far is released before the call returns: no
// partial set is left held. Failure-path releases are not cut short by
// ctx. With a fixed lease, members taken early may expire while later ones
// are awaited: the set is granted only when all are held at once, so it
// then starts over; give a lease well above the set's wait.
type MultiLock struct {
	members []Member // canonical order
	quorum  bool     // a RedLock: need of the members suffice
	need    int
	err     error  // why the set is unusable; nil when usable
	label   string // the members' names, naming the set in errors

	mu    sync.Mutex
	holds []acquisition // outermost first
	watch *watch        // Lost of the outermost acquisition
}

// acquisition is one successful acquisition of a set: the members it holds,
// and those whose attempt failed with an error and that may have been
// taken all the same (a lost reply), released on a best-effort basis.
type acquisition struct{ held, unsure []Member }

// NewMultiLock returns a lock over every one of members, acquired all or
// nothing. Its members must be distinct locks: a name may appear twice only
// on different Redis deployments. An unusable set yields a MultiLock whose
// every operation returns an error wrapping ErrInvalidSet or
// ErrInvalidName.
func NewMultiLock(members ...Member) *MultiLock {
	l := &MultiLock{need: len(members), label: label(members)}
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
		if isNil(m) || m.base() == nil {
			return nil, fmt.Errorf("%w: member %d is nil", ErrInvalidSet, i)
		}
		if m.Name() == "" {
			return nil, fmt.Errorf("%w: member %d", ErrInvalidName, i)
		}
		sorted[i] = m
	}
	slices.SortStableFunc(sorted, func(a, b Member) int {
		return cmp.Or(cmp.Compare(a.Name(), b.Name()), cmp.Compare(a.base().c.ID(), b.base().c.ID()))
	})
	for i, a := range sorted {
		for _, b := range sorted[i+1:] {
			oa, ob := a.base(), b.base()
			sameRedis := oa.c == ob.c || same(oa.c.rdb, ob.c.rdb)
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

// label names a set by its members' names, sorted.
func label(ms []Member) string {
	var names []string
	for _, m := range ms {
		if !isNil(m) && m.base() != nil {
			names = append(names, m.Name())
		}
	}
	slices.Sort(names)
	return "[" + strings.Join(names, " ") + "]"
}

// same reports whether a and b are one go-redis client.
func same(a, b any) bool {
	ta, tb := reflect.TypeOf(a), reflect.TypeOf(b)
	return ta == tb && ta.Comparable() && a == b
}

// isNil reports whether m is nil or a nil pointer.
func isNil(m Member) bool {
	if m == nil {
		return true
	}
	v := reflect.ValueOf(m)
	return v.Kind() == reflect.Pointer && v.IsNil()
}

// Lock acquires the set, waiting as long as it takes or until ctx ends,
// and returns ctx.Err() then, holding nothing. Each member gets the
// watchdog timeout of its Client as lease, renewed until Unlock.
func (l *MultiLock) Lock(ctx context.Context) error { return lockForever(ctx, l.label, l.acquire) }

// LockWithLease acquires the set like Lock, but every member with the
// fixed lease, which nothing renews.
func (l *MultiLock) LockWithLease(ctx context.Context, lease time.Duration) error {
	return lockWithLease(ctx, l.label, lease, l.acquire)
}

// TryLock acquires the set if it can within wait, a deadline for the whole
// set: wait 0 is a single attempt at each member. A positive lease is fixed
// for every member; lease 0 lets their watchdogs keep them. It returns
// (true, nil) when the set is held, (false, nil) when wait elapsed first,
// (false, ctx.Err()) when ctx ended first and (false, err) on a member's
// error; unless it returns true, it holds no member. Negative durations are
// errors.
func (l *MultiLock) TryLock(ctx context.Context, wait, lease time.Duration) (bool, error) {
	return tryLock(ctx, l.label, wait, lease, l.acquire)
}

// Unlock releases one acquisition of every member the last acquisition of
// the set took, all at once, and returns every member's error joined
// (errors.Join). A member lost meanwhile reports ErrNotHeld, so the error
// wraps ErrNotHeld when any member was not held; when the set is not held
// at all, Unlock changes nothing and returns an error wrapping ErrNotHeld.
func (l *MultiLock) Unlock(ctx context.Context) error {
	if l.err != nil {
		return opError("unlock", l.label, l.err)
	}
	l.mu.Lock()
	n := len(l.holds)
	if n == 0 {
		l.mu.Unlock()
		return opError("unlock", l.label, ErrNotHeld)
	}
	a := l.holds[n-1]
	l.holds = l.holds[:n-1]
	var w *watch
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

// acquire takes the set; wait < 0 has no limit.
func (l *MultiLock) acquire(ctx context.Context, wait, lease time.Duration) (bool, error) {
	if l.err != nil {
		return false, l.err
	}
	if err := ctx.Err(); err != nil {
		return false, err
	}
	var deadline time.Time
	if wait > 0 {
		deadline = time.Now().Add(wait)
	}
	take := l.acquireAll
	if l.quorum {
		take = l.acquireQuorum
	}
	a, ok, err := take(ctx, wait, deadline, lease)
	if !ok || err != nil {
		return false, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.watch != nil && l.watch.isLost() {
		// The earlier acquisitions are gone; this one starts afresh.
		l.watch.stop()
		l.holds, l.watch = nil, nil
	}
	if l.watch == nil {
		l.watch = newWatch(a.held, l.need)
	}
	l.holds = append(l.holds, a)
	return true, nil
}

// acquireAll takes every member: first all at once, then in canonical
// order, waiting for one member at a time as the type's doc describes.
func (l *MultiLock) acquireAll(ctx context.Context, wait time.Duration, deadline time.Time, lease time.Duration) (acquisition, bool, error) {
	ms := l.members
	held := make([]bool, len(ms))
	// unsure are members whose attempt failed with an error but may
	// have taken the lock: released with the rest.
	var unsure []Member
	fail := func(err error) (acquisition, bool, error) {
		releaseEach(ctx, append(pick(ms, held), unsure...))
		return acquisition{}, false, err
	}
	first := -1 // first member in order not taken
	var errs []error
	for i, r := range attemptEach(ctx, ms, lease) {
		held[i] = r.ok
		if r.err != nil {
			errs = append(errs, r.err)
			if mayHaveTaken(ctx, r.err) {
				unsure = append(unsure, ms[i])
			}
		}
		if !r.ok && first < 0 {
			first = i
		}
	}
	if len(errs) > 0 {
		return fail(errors.Join(errs...))
	}
	if first >= 0 {
		if wait == 0 {
			return fail(nil)
		}
		// Keep only members that sort before the first one missing.
		var later []Member
		for i := first + 1; i < len(ms); i++ {
			if held[i] {
				later, held[i] = append(later, ms[i]), false
			}
		}
		releaseEach(ctx, later)
	}
	for {
		i := slices.Index(held, false)
		if i < 0 {
			if allValid(ms) {
				return acquisition{held: ms}, true, nil
			}
			// A fixed lease ran out while later members were awaited.
			releaseEach(ctx, ms)
			clear(held)
			if _, live := waitLeft(wait, deadline); !live {
				return acquisition{}, false, nil
			}
			continue
		}
		mayWait := true
		for j, h := range held {
			if h && ms[j].Name() >= ms[i].Name() {
				mayWait = false
			}
		}
		w, live := waitLeft(wait, deadline)
		if !live {
			return fail(nil)
		}
		if !mayWait {
			w = 0
		}
		ok, err := ms[i].acquire(ctx, w, lease)
		if err != nil {
			if mayHaveTaken(ctx, err) {
				unsure = append(unsure, ms[i])
			}
			return fail(err)
		}
		if ok {
			held[i] = true
			continue
		}
		if mayWait {
			return fail(nil) // the wait elapsed
		}
		// A member held sorts no lower: let go of all, wait for this one.
		releaseEach(ctx, pick(ms, held))
		clear(held)
		if w, live = waitLeft(wait, deadline); !live {
			return acquisition{}, false, nil
		}
		if ok, err = ms[i].acquire(ctx, w, lease); !ok || err != nil {
			if mayHaveTaken(ctx, err) {
				unsure = append(unsure, ms[i])
			}
			return fail(err)
		}
		held[i] = true
	}
}

// mayHaveTaken reports whether an attempt that failed with err may have
// taken its lock all the same: a Redis error may hide a lost reply, while
// an ended ctx or a closed Client stops a member before its attempt.
func mayHaveTaken(ctx context.Context, err error) bool {
	return err != nil && ctx.Err() == nil && !errors.Is(err, ErrClosed)
}

// waitLeft is what is left of a wait that ends at deadline: negative for a
// wait with no limit; live is false once a positive wait has elapsed.
func waitLeft(wait time.Duration, deadline time.Time) (left time.Duration, live bool) {
	if wait < 0 {
		return -1, true
	}
	left = time.Until(deadline)
	return left, left > 0
}

// allValid reports whether every member's lease is still running.
func allValid(ms []Member) bool {
	now := time.Now()
	for _, m := range ms {
		if end, _ := m.base().leaseEnd(); !end.After(now) {
			return false
		}
	}
	return true
}

// pick returns the members whose flag is set.
func pick(ms []Member, flags []bool) []Member {
	var out []Member
	for i, m := range ms {
		if flags[i] {
			out = append(out, m)
		}
	}
	return out
}

// attempt is the outcome of one member's attempt.
type attempt struct {
	ok  bool
	err error
}

// attemptEach makes a single attempt at each member, all at once.
func attemptEach(ctx context.Context, ms []Member, lease time.Duration) []attempt {
	out := make([]attempt, len(ms))
	each(ms, func(i int, m Member) {
		out[i].ok, out[i].err = m.acquire(ctx, 0, lease)
	})
	return out
}

// releaseEach releases one acquisition of each member, all at once, and
// returns their errors.
func releaseEach(ctx context.Context, ms []Member) []error {
	errs := make([]error, len(ms))
	each(ms, func(i int, m Member) { errs[i] = m.Unlock(ctx) })
	return errs
}

// each runs f for every member concurrently and returns when all are done.
func each(ms []Member, f func(int, Member)) {
	if len(ms) == 1 {
		f(0, ms[0])
		return
	}
	var wg sync.WaitGroup
	wg.Add(len(ms))
	for i, m := range ms {
		go func() {
			defer wg.Done()
			f(i, m)
		}()
	}
	wg.Wait()
}
