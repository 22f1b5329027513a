package rlock

import (
	"context"
	"sync/atomic"
	"time"
)

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

	// acquire is TryLock by deadline (see deadlineAfter), without its
	// argument checks.
	acquire(ctx context.Context, deadline time.Time, lease time.Duration) (bool, error)
	// base is the member's owner; nil for a view of a nil lock.
	base() *owner
}

func (o *owner) base() *owner { return o }

// leaseEnd is when the lease of this owner's hold is known to end, and the
// lease; zero when it does not hold the lock or has lost it.
func (o *owner) leaseEnd() (time.Time, time.Duration) {
	if h := o.currentHold(); h != nil {
		return h.leaseEnd()
	}
	return time.Time{}, 0
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
	if err := checkTry(wait, lease); err != nil {
		return false, opError("try lock", m.f.name, err)
	}
	ok, err := m.acquire(ctx, deadlineAfter(wait), lease)
	return ok, opError("try lock", m.f.name, err)
}

// Unlock releases one acquisition, as FencedMutex.Unlock does.
func (m *FencedMember) Unlock(ctx context.Context) error { return m.f.Unlock(ctx) }

func (m *FencedMember) acquire(ctx context.Context, deadline time.Time, lease time.Duration) (bool, error) {
	token, ok, err := m.f.acquireToken(ctx, deadline, lease)
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
