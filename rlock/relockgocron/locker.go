package relockgocron

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/go-co-op/gocron/v2"

	"github.com/relock-go/relock/rlock"
)

// Defaults of a Locker's options.
const (
	DefaultPrefix      = "gocron:"
	DefaultSplay       = 250 * time.Millisecond
	DefaultLockTimeout = 5 * time.Second
)

// claimSuffix ends the name of a job's claim lock.
const claimSuffix = ":claim"

// Locker is a gocron.Locker on rlock's locks: every scheduler of a job
// calls Lock at each of its ticks, and one run of each tick goes ahead.
//
// A run holds the job's lock, the rlock.Mutex "<prefix><job>", from Lock
// to Unlock, renewed by rlock's watchdog however long it runs; Lock finds
// it held by another run and fails with ErrRunning, so runs of one job
// never overlap. A run that loses its lock (Redis unreachable for its
// lease, the lock deleted) is reported to WithOnLost, and the context
// Locker.Context gives its job ends.
//
// A run also claims its tick: the lock "<prefix><job>:claim", taken with
// a fixed lease (the claim) and never released, expires on its own. A
// scheduler that fires the same tick later (its clock, or its process,
// behind by less than the claim) finds the claim and fails with
// ErrTickClaimed, even when the first run has ended. The claim lasts the
// splay (WithSplay, 250 ms by default) but at most half the time between
// this scheduler's last two Locks of the job, so that it ends before the
// next tick: for a job every I, the ticks of schedulers up to
// min(splay, I/2) apart run once each, less a round trip, and no tick is
// delayed. The first Lock of a job in a process, which knows no I yet,
// claims the whole splay: for jobs every less than twice the splay, set a
// smaller one.
//
// Lock never waits for a busy lock, and returns by WithLockTimeout (5 s by
// default) or when its ctx ends, whatever Redis does: gocron then skips
// the run. Its methods are safe for concurrent use.
type Locker struct {
	client  *rlock.Client
	prefix  string
	splay   time.Duration
	timeout time.Duration
	onLost  func(job string, cause error)

	mu    sync.Mutex
	fired map[string]time.Time // this scheduler's last Lock of each job
	runs  map[string]*run      // the run of each job holding its lock here
}

var _ gocron.Locker = (*Locker)(nil)

// LockerOption configures a Locker.
type LockerOption func(*Locker) error

// WithPrefix sets the prefix of the jobs' lock names (DefaultPrefix by
// default): the lock of job j is "<prefix>j". It must make valid rlock
// names (rlock.ErrInvalidName): a hash tag such as "{jobs}:" puts every
// job's locks in one Redis Cluster slot.
func WithPrefix(prefix string) LockerOption {
	return func(l *Locker) error {
		l.prefix = prefix
		return nil
	}
}

// WithSplay sets how far apart in time the schedulers may fire one tick
// (DefaultSplay by default, at least 1ms): the claim of a tick (see
// Locker).
func WithSplay(d time.Duration) LockerOption {
	return func(l *Locker) error {
		l.splay = d
		return checkDuration("WithSplay", d, time.Millisecond)
	}
}

// WithLockTimeout bounds each Lock (DefaultLockTimeout by default, at
// least 1ms): when Redis has not answered by then, Lock fails and gocron
// skips the run.
func WithLockTimeout(d time.Duration) LockerOption {
	return func(l *Locker) error {
		l.timeout = d
		return checkDuration("WithLockTimeout", d, time.Millisecond)
	}
}

// WithOnLost sets f to be called, once, when a run loses its job's lock
// before Unlock (cause wraps rlock.ErrLost, or is rlock.ErrClosed when the
// Client closed), on a goroutine of its own. rlock's logger reports the
// loss too.
func WithOnLost(f func(job string, cause error)) LockerOption {
	return func(l *Locker) error {
		if f == nil {
			return errors.New("WithOnLost: nil func")
		}
		l.onLost = f
		return nil
	}
}

// NewLocker returns a Locker of the jobs' locks on client. A prefix that
// does not make valid names is an error wrapping rlock.ErrInvalidName, a
// bad duration one wrapping rlock.ErrInvalidDuration.
func NewLocker(client *rlock.Client, opts ...LockerOption) (*Locker, error) {
	if client == nil {
		return nil, errors.New("relockgocron: NewLocker: nil *rlock.Client")
	}
	l := &Locker{client: client, prefix: DefaultPrefix, splay: DefaultSplay, timeout: DefaultLockTimeout,
		onLost: func(string, error) {}, fired: make(map[string]time.Time), runs: make(map[string]*run)}
	for _, opt := range opts {
		if opt == nil {
			return nil, errors.New("relockgocron: NewLocker: nil LockerOption")
		}
		if err := opt(l); err != nil {
			return nil, fmt.Errorf("relockgocron: NewLocker: %w", err)
		}
	}
	if err := checkName(client, l.prefix+"job"+claimSuffix); err != nil {
		return nil, fmt.Errorf("relockgocron: NewLocker: prefix %q: %w", l.prefix, err)
	}
	return l, nil
}

// Lock takes the lock of job and claims its tick (see Locker), in two
// round trips. It returns an error wrapping ErrRunning while another run
// holds the lock, ErrTickClaimed when the tick was claimed, rlock's error
// for a job name that makes an invalid lock name (rlock.ErrInvalidName) or
// a closed Client (rlock.ErrClosed), and context.DeadlineExceeded (or
// ctx's error) when the lock timeout (or ctx) ended first.
//
// rlock sends an acquisition through to its answer whatever its ctx does,
// so that no lock is taken unknown to its owner: when the timeout comes
// first, Lock returns at once and the acquisition finishes on a goroutine
// of its own, which releases the job's lock if it took it (the claim
// stays) and ends when Redis answers or go-redis gives up.
func (l *Locker) Lock(ctx context.Context, job string) (gocron.Lock, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("relockgocron: job %q: %w", job, err)
	}
	claim := l.claim(job, time.Now())
	ctx, cancel := context.WithTimeout(ctx, l.timeout)
	defer cancel()
	type result struct {
		run *run
		err error
	}
	done := make(chan result, 1)
	go func() {
		r, err := l.take(ctx, job, claim)
		done <- result{r, err}
	}()
	select {
	case r := <-done:
		if r.err != nil {
			return nil, r.err
		}
		return r.run, nil
	case <-ctx.Done():
		go func() {
			if r := <-done; r.run != nil {
				_ = r.run.Unlock(context.Background())
			}
		}()
		return nil, fmt.Errorf("relockgocron: job %q: %w", job, context.Cause(ctx))
	}
}

// take takes the lock of job, then claims its tick for claim.
func (l *Locker) take(ctx context.Context, job string, claim time.Duration) (*run, error) {
	m := l.client.NewMutex(l.prefix + job)
	ok, err := m.TryLock(ctx, 0, 0)
	switch {
	case err != nil:
		return nil, err
	case !ok:
		return nil, fmt.Errorf("relockgocron: job %q: %w", job, ErrRunning)
	}
	ok, err = l.client.NewMutex(l.prefix+job+claimSuffix).TryLock(ctx, 0, claim)
	if err != nil || !ok {
		_ = m.Unlock(ctx) // sent even though ctx may have ended
		if err == nil {
			err = fmt.Errorf("relockgocron: job %q: %w", job, ErrTickClaimed)
		}
		return nil, err
	}
	return l.started(job, m), nil
}

// claim returns how long a run of job that starts now claims its tick,
// and records now as this scheduler's last Lock of job.
func (l *Locker) claim(job string, now time.Time) time.Duration {
	l.mu.Lock()
	last, seen := l.fired[job]
	l.fired[job] = now
	l.mu.Unlock()
	d := l.splay
	if half := now.Sub(last) / 2; seen && half < d {
		d = half
	}
	return max(d, time.Millisecond)
}

// Context returns a copy of parent that is cancelled when the run of job
// that holds its lock in this process ends: by Unlock, or lost
// (context.Cause wraps rlock.ErrLost, or is rlock.ErrClosed). Call it in
// the job with the job's name and the ctx gocron passes it, and run the
// job's work under the result. When no run of job holds its lock here,
// the context is cancelled already (cause rlock.ErrNotHeld).
func (l *Locker) Context(parent context.Context, job string) (context.Context, context.CancelFunc) {
	l.mu.Lock()
	r := l.runs[job]
	l.mu.Unlock()
	if r == nil {
		ctx, cancel := context.WithCancelCause(parent)
		cancel(rlock.ErrNotHeld)
		return ctx, func() { cancel(context.Canceled) }
	}
	return r.m.Context(parent)
}

// run is a run of a job holding its lock: the gocron.Lock Lock returns.
type run struct {
	l   *Locker
	job string
	m   *rlock.Mutex
	// held ends when the hold does; its cause tells a loss from Unlock.
	held    context.Context
	release context.CancelFunc
	// quiet stops the report of a loss; false once it is under way.
	quiet func() bool
	ended sync.Once // Unlock's
}

// started records the run of job that holds m.
func (l *Locker) started(job string, m *rlock.Mutex) *run {
	r := &run{l: l, job: job, m: m}
	r.held, r.release = m.Context(context.Background())
	r.quiet = context.AfterFunc(r.held, func() { l.onLost(job, context.Cause(r.held)) })
	l.mu.Lock()
	l.runs[job] = r
	l.mu.Unlock()
	return r
}

// Unlock ends the run: it releases the job's lock (the claim stays until
// it expires). It returns an error wrapping rlock.ErrLost (or
// rlock.ErrClosed) when the run had lost the lock, which WithOnLost was
// told; a second Unlock, one wrapping rlock.ErrNotHeld. gocron ignores
// the error.
func (r *run) Unlock(ctx context.Context) error {
	err := fmt.Errorf("relockgocron: job %q: %w", r.job, rlock.ErrNotHeld)
	r.ended.Do(func() { err = r.end(ctx) })
	return err
}

// end is the first Unlock.
func (r *run) end(ctx context.Context) error {
	r.l.mu.Lock()
	if r.l.runs[r.job] == r {
		delete(r.l.runs, r.job)
	}
	r.l.mu.Unlock()
	stopped := r.quiet()
	lost := context.Cause(r.held)
	if stopped && lost != nil {
		r.l.onLost(r.job, lost) // lost after the report was stopped
	}
	r.release()
	err := r.m.Unlock(ctx)
	if lost != nil {
		return fmt.Errorf("relockgocron: job %q: the run lost its lock: %w", r.job, lost)
	}
	return err
}
