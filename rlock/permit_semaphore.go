package rlock

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/relock-go/relock/scripts"
)

// PermitExpirableSemaphore is a distributed semaphore whose permits carry
// ids and leases, wire-compatible with Redisson's
// RPermitExpirableSemaphore: the key NAME holds the available permits,
// the sorted set {NAME}:timeout the leased ones (id → expiry), and
// releases are announced on redisson_sc:{NAME}. A permit whose lease ran
// out comes back by Redisson's rule: the next acquisition, release or
// count of any client returns expired permits to the count. So a worker
// that dies holding a permit gives it back when its lease ends.
//
// Waiters are served as a Semaphore's are (see NewSemaphore); a waiter
// that finds no permit sleeps until woken by a release, or until the
// earliest lease ends, when a permit may come back (Redisson's bound). It
// is safe for concurrent use.
type PermitExpirableSemaphore struct {
	countHandle
	s *scripts.PermitSemaphore
}

// NewPermitExpirableSemaphore returns the permit-expirable semaphore
// called name. It sends nothing to Redis; it has no permits until
// TrySetPermits or AddPermits gives it some.
func (c *Client) NewPermitExpirableSemaphore(name string) *PermitExpirableSemaphore {
	s := scripts.NewPermitSemaphore(name)
	return &PermitExpirableSemaphore{countHandle: newCountHandle(c, name, s.Channel(), KindPermitSemaphore), s: s}
}

// Permit is one leased permit of a PermitExpirableSemaphore.
type Permit struct {
	// ID is the permit's id, 32 hex digits, as Redisson gives it: Release
	// and UpdateLeaseTime take it, in Go or in Java.
	ID string

	mu     sync.Mutex
	expiry time.Time // zero: never
	timer  *time.Timer
	lost   chan struct{}
	ended  bool
}

// Lost is closed when the permit's lease ran out (by this process's clock,
// against the expiry it gave the permit) before ReleasePermit, or when a
// ReleasePermit or Extend of this Permit found it no longer leased: from
// then on another worker may hold it. A permit without a lease (0) is
// lost only that second way. A successful ReleasePermit ends the watch
// without closing it, and a successful Extend moves its deadline (a lease
// of 0 removes it).
func (p *Permit) Lost() <-chan struct{} { return p.lost }

// Expiry is when the permit's lease ends; zero when it never does.
func (p *Permit) Expiry() time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.expiry
}

// arm sets the permit's expiry and its Lost timer.
func (p *Permit) arm(expiry time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ended {
		return
	}
	p.expiry = expiry
	if p.timer != nil {
		p.timer.Stop()
		p.timer = nil
	}
	if !expiry.IsZero() {
		p.timer = time.AfterFunc(time.Until(expiry), func() { p.end(true) })
	}
}

// end ends the permit's watch: lost reports that it was lost.
func (p *Permit) end(lost bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ended {
		return
	}
	p.ended = true
	if p.timer != nil {
		p.timer.Stop()
	}
	if lost {
		close(p.lost)
	}
}

// TrySetPermits sets the permits to n if the semaphore has no count yet,
// and reports whether it did.
func (s *PermitExpirableSemaphore) TrySetPermits(ctx context.Context, n int) (bool, error) {
	return (&Semaphore{countHandle: s.countHandle, s: s.s.Semaphore}).TrySetPermits(ctx, n)
}

// SetPermits gives the semaphore n permits in all (at least 0), the
// leased ones included, whatever it had (Redisson's setPermits): without
// a count it sets the count to n; else the available permits move by n
// less the permits there are, available and leased (expired leases
// included: they come back later), and its waiters are woken unless that
// changed nothing. While more than n permits are leased, none is
// available until enough come back. Unlike TrySetPermits, it resets a
// count that an earlier run left.
func (s *PermitExpirableSemaphore) SetPermits(ctx context.Context, n int) error {
	if err := s.begin(ctx); err != nil {
		return opError("set permits", s.name, err)
	}
	if n < 0 {
		return opError("set permits", s.name, fmt.Errorf("%w: %d permits: at least 0", ErrInvalidCount, n))
	}
	_, err := s.s.Set(ctx, s.c.rdb, n, s.c.publishCommand())
	return opError("set permits", s.name, err)
}

// Delete deletes the semaphore's count and leased permits, and reports
// whether it had either (Redisson's delete). The permits leased are gone:
// their Release fails with ErrNotHeld, and ReleasePermit and Extend close
// their Lost. Its waiters keep waiting, as on a semaphore that has no
// permits set.
func (s *PermitExpirableSemaphore) Delete(ctx context.Context) (bool, error) {
	if err := s.usable(); err != nil {
		return false, opError("delete", s.name, err)
	}
	ok, err := s.s.Delete(ctx, s.c.rdb)
	return ok, opError("delete", s.name, err)
}

// AddPermits adds n permits (fewer when negative), as Semaphore.AddPermits.
func (s *PermitExpirableSemaphore) AddPermits(ctx context.Context, n int) error {
	return (&Semaphore{countHandle: s.countHandle, s: s.s.Semaphore}).AddPermits(ctx, n)
}

// Acquire leases a permit for lease (0: it never expires; negative, or
// below 1ms: ErrInvalidDuration), waiting until it gets one or ctx ends:
// on a semaphore with no permits set, that is until ctx ends (as
// Redisson's), so bound ctx or use TryAcquire.
func (s *PermitExpirableSemaphore) Acquire(ctx context.Context, lease time.Duration) (*Permit, error) {
	return s.acquire(ctx, noDeadline, lease)
}

// TryAcquire leases a permit for lease if it can within wait, and returns
// nil and no error when the wait elapsed. Its durations come in Redisson's
// order, the wait then the lease (Semaphore.TryAcquire's arguments are the
// permits, then the wait). A wait of 0 makes one attempt and a lease of 0
// never expires; a negative wait or lease, or a lease below 1ms, is an
// error wrapping ErrInvalidDuration.
func (s *PermitExpirableSemaphore) TryAcquire(ctx context.Context, wait, lease time.Duration) (*Permit, error) {
	if err := checkWait(wait); err != nil {
		return nil, opError("acquire", s.name, err)
	}
	return s.acquire(ctx, deadlineAfter(wait), lease)
}

// acquire is TryAcquire by deadline, without its check of the wait.
func (s *PermitExpirableSemaphore) acquire(ctx context.Context, deadline time.Time, lease time.Duration) (*Permit, error) {
	if err := checkOptionalLease(lease); err != nil {
		return nil, opError("acquire", s.name, err)
	}
	t := &permitTurn{countTurn: s.turn(1), s: s.s, raw: make([]byte, 16), lease: lease}
	_, _ = rand.Read(t.raw)
	ok, err := s.countHandle.acquire(ctx, t, deadline)
	if !ok || err != nil {
		return nil, opError("acquire", s.name, err)
	}
	p := &Permit{ID: hex.EncodeToString(t.raw), lost: make(chan struct{})}
	p.arm(t.expiry)
	return p, nil
}

// permitTurn is the turn of an acquisition of a leased permit: its id
// (raw), its lease (0: none), and the expiry its last attempt gave it. A
// waiter that finds no permit sleeps at most until the earliest lease
// ends, when a permit may come back (Redisson's bound).
type permitTurn struct {
	countTurn
	s      *scripts.PermitSemaphore
	raw    []byte
	lease  time.Duration
	expiry time.Time
}

func (t *permitTurn) attempt(ctx context.Context) (outcome, error) {
	if t.lease > 0 {
		t.expiry = time.Now().Add(t.lease)
	}
	ok, next, err := t.s.Acquire(context.WithoutCancel(ctx), t.c.sender, [][]byte{t.raw}, t.expiry, t.lease == 0, t.c.publishCommand())
	pause := t.c.opts.watchdogTimeout
	if !next.IsZero() {
		pause = min(pause, max(time.Until(next), time.Millisecond))
	}
	return outcome{ok: ok && err == nil, ttl: pause, count: t.permits}, err
}

// ErrInvalidPermitID is the cause of a Release or UpdateLeaseTime given a
// permit id that no permit can have: empty, or not hex digits. Nothing is
// sent to Redis.
var ErrInvalidPermitID = errors.New("invalid permit id")

// parseID decodes a permit id.
func parseID(id string) ([]byte, error) {
	if id == "" {
		return nil, fmt.Errorf("%w: the id is empty", ErrInvalidPermitID)
	}
	raw, err := hex.DecodeString(id)
	if err != nil {
		return nil, fmt.Errorf("%w: %q is not hex", ErrInvalidPermitID, id)
	}
	return raw, nil
}

// Release releases the permit id, leased by this or any other client (Go
// or Java), and wakes the waiters. It returns an error wrapping ErrNotHeld
// when the permit is not leased: released already, expired, or never
// taken; and one wrapping ErrInvalidPermitID, sending nothing, when id is
// empty or not hex. It is sent even when ctx has ended (bounded by the unlock
// timeout), and a request resent after a lost reply is applied once (and
// reported a success): the Client's request records keep its outcome.
func (s *PermitExpirableSemaphore) Release(ctx context.Context, id string) error {
	if err := s.usable(); err != nil {
		return opError("release", s.name, err)
	}
	raw, err := parseID(id)
	if err != nil {
		return opError("release", s.name, err)
	}
	start := time.Now()
	req, end := s.request()
	defer end()
	var ls scripts.Listeners
	n, err := persist(s.c, ctx, func(ctx context.Context) (n int64, err error) {
		n, ls, err = s.s.Release(ctx, s.c.sender, [][]byte{raw}, s.c.publishCommand(), req, s.c.countDue(s.channel))
		return n, err
	})
	switch {
	case err == nil && n == 0:
		err = fmt.Errorf("%w: permit %s is not leased (released, expired, or never taken)", ErrNotHeld, id)
	case err == nil:
		s.released(ls)
	}
	s.observe(ctx, EventReleased, int(n), start, err)
	return opError("release", s.name, err)
}

// ReleasePermit is Release of p's id; it also ends p's watch, so that Lost
// is closed only if the permit was lost.
func (s *PermitExpirableSemaphore) ReleasePermit(ctx context.Context, p *Permit) error {
	err := s.Release(ctx, p.ID)
	switch {
	case err == nil:
		p.end(false)
	case errors.Is(err, ErrNotHeld):
		p.end(true)
	}
	return err
}

// UpdateLeaseTime gives the leased permit id a new lease from now (0: it
// never expires; negative, or below 1ms: ErrInvalidDuration) and reports
// whether the permit was leased. An id that is empty or not hex is an
// error wrapping ErrInvalidPermitID.
func (s *PermitExpirableSemaphore) UpdateLeaseTime(ctx context.Context, id string, lease time.Duration) (bool, error) {
	if err := checkOptionalLease(lease); err != nil {
		return false, opError("update lease", s.name, err)
	}
	raw, err := parseID(id)
	if err != nil {
		return false, opError("update lease", s.name, err)
	}
	if err := s.begin(ctx); err != nil {
		return false, opError("update lease", s.name, err)
	}
	var expiry time.Time
	if lease > 0 {
		expiry = time.Now().Add(lease)
	}
	ok, err := s.s.Update(ctx, s.c.rdb, raw, expiry, lease == 0, s.c.publishCommand())
	return ok, opError("update lease", s.name, err)
}

// Extend is UpdateLeaseTime of p, which also moves p's Lost deadline; a
// permit found no longer leased is lost (Lost is closed).
func (s *PermitExpirableSemaphore) Extend(ctx context.Context, p *Permit, lease time.Duration) (bool, error) {
	sent := time.Now()
	ok, err := s.UpdateLeaseTime(ctx, p.ID, lease)
	switch {
	case err != nil:
	case !ok:
		p.end(true)
	case lease == 0:
		p.arm(time.Time{})
	default:
		p.arm(sent.Add(lease))
	}
	return ok, err
}

// AvailablePermits is the number of permits available now, once expired
// permits came back.
func (s *PermitExpirableSemaphore) AvailablePermits(ctx context.Context) (int, error) {
	if err := s.begin(ctx); err != nil {
		return 0, opError("available permits", s.name, err)
	}
	n, err := s.s.Available(ctx, s.c.rdb, s.c.publishCommand())
	return int(n), opError("available permits", s.name, err)
}
