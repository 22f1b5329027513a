package main

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"time"

	"github.com/relock-go/relock/rlock"
	"github.com/relock-go/relock/test/proof/history"
	"github.com/relock-go/relock/test/proof/store"
)

// loop runs one workload on one namespace: iterations one after another,
// each on the object of the workload's current epoch.
type loop struct {
	w      *worker
	ns, wl string
	locks  *rlock.Client
	rng    *rand.Rand

	epoch  int64
	object string
	// handle is the lock, semaphore or election of object, made when the
	// loop moved to it (one owner per loop, as a user keeps one handle
	// per critical section).
	handle any
	// permitsSet is the semaphore object the loop gave its permits to.
	permitsSet string
}

// opTimeout bounds an operation inside a section (the resource's, or a
// release), which never waits for another process.
const opTimeout = resourceTimeout

// backoff is the pause after an acquisition that failed with an error, so
// that a loop does not spin while Redis is unreachable.
const backoff = 100 * time.Millisecond

func (l *loop) run(ctx context.Context) {
	for ctx.Err() == nil {
		if err := l.follow(ctx); err != nil {
			l.pause(ctx, backoff)
			continue
		}
		l.once(ctx)
	}
}

// warm runs iterations on the process's own warm-up object of the
// workload until ctx ends, at least one.
func (l *loop) warm(ctx context.Context) {
	if err := l.use(store.Warmup(l.ns, l.wl, l.w.c.process)); err != nil {
		return
	}
	l.once(context.Background())
	for ctx.Err() == nil {
		l.once(ctx)
	}
}

// once runs one iteration and the pause after it.
func (l *loop) once(ctx context.Context) {
	if !l.iterate(ctx) {
		l.pause(ctx, backoff)
	}
	l.pause(ctx, l.between(l.w.c.think))
}

// follow moves the loop to the object of its workload's current epoch.
func (l *loop) follow(ctx context.Context) error {
	epoch, err := l.w.store.Epoch(ctx, l.ns, l.wl)
	if err != nil || epoch == l.epoch {
		return err
	}
	l.epoch = epoch
	return l.use(store.Object(l.ns, l.wl, epoch))
}

// use moves the loop to object, with a new handle of it.
func (l *loop) use(object string) error {
	l.object = object
	switch l.wl {
	case store.Fenced:
		l.handle = l.locks.NewFencedMutex(l.object)
	case store.Plain:
		l.handle = l.locks.NewMutex(l.object)
	case store.Fair:
		l.handle = l.locks.NewFairMutex(l.object)
	case store.RW:
		l.handle = l.locks.NewRWMutex(l.object)
	case store.FairRW:
		l.handle = l.locks.NewFairRWMutex(l.object)
	case store.Latch:
		l.handle = l.latch
	case store.Rate:
		l.handle = l.rate(l.locks.NewRateLimiter(l.object))
	case store.RedLock:
		l.handle = l.redLock()
	case store.Semaphore:
		l.handle = l.locks.NewSemaphore(l.object)
	case store.PESemaphore:
		l.handle = l.locks.NewPermitExpirableSemaphore(l.object)
	case store.Election:
		l.handle = l.locks.NewElection(l.object)
	default:
		return fmt.Errorf("unknown workload %q", l.wl)
	}
	return nil
}

// iterate runs one iteration and reports whether its acquisition
// succeeded.
func (l *loop) iterate(ctx context.Context) bool {
	switch h := l.handle.(type) {
	case *rlock.FencedMutex:
		return l.fenced(ctx, h)
	case *rlock.Mutex:
		return l.plain(ctx, h)
	case *rlock.FairMutex:
		return l.fair(ctx, h)
	case *rlock.RWMutex:
		return l.rw(ctx, h)
	case *rlock.Semaphore:
		return l.semaphore(ctx, h)
	case *rlock.PermitExpirableSemaphore:
		return l.pesemaphore(ctx, h)
	case *rlock.Election:
		return l.election(ctx, h)
	case func(context.Context) bool:
		return h(ctx)
	}
	return false
}

// between returns a random pause in [0, d].
func (l *loop) between(d time.Duration) time.Duration {
	if d <= 0 {
		return 0
	}
	return time.Duration(l.rng.Int64N(int64(d) + 1))
}

// pause waits d, or less if ctx ends first.
func (l *loop) pause(ctx context.Context, d time.Duration) {
	if d <= 0 {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// hold pauses inside a section, for a random time up to -hold. It does not
// end early when the worker stops: a section is finished as it began.
func (l *loop) hold() { time.Sleep(l.between(l.w.c.hold)) }

// work pauses inside the section of a hold the watchdog keeps, as hold
// does, or for 0.5 to 4 leases when it takes one of the process's long
// holds (-long at once): real work that outlives several renewals. It ends
// early when work (the hold's Context) ends: a holder told of its loss
// stops.
func (l *loop) work(work context.Context) {
	d := l.between(l.w.c.hold)
	select {
	case l.w.long <- struct{}{}:
		defer func() { <-l.w.long }()
		lease := float64(l.w.c.lease)
		d = time.Duration(lease * (longHoldMin + l.rng.Float64()*(longHoldMax-longHoldMin)))
	default:
	}
	l.pause(work, d)
}

// The bounds of a long hold, in leases.
const (
	longHoldMin = 0.5
	longHoldMax = 4
)

// acquire records an acquisition made with take, whose wait is bounded
// (and ends when the worker stops), and reports whether it succeeded.
// take returns the token granted, or 0 where there is none.
func (l *loop) acquire(ctx context.Context, mode string, take func(context.Context) (int64, error)) (int64, bool) {
	o := l.invoke("acquire", history.Event{Mode: mode})
	actx, cancel := context.WithTimeout(withAcquisition(ctx, o), l.w.c.wait)
	defer cancel()
	token, err := take(actx)
	return token, acquired(o, err, history.Event{Mode: mode, Token: token})
}

// untokened adapts an acquisition that grants no token to acquire.
func untokened(take func(context.Context) error) func(context.Context) (int64, error) {
	return func(ctx context.Context) (int64, error) { return 0, take(ctx) }
}

// opCtx bounds an operation inside a section; it does not end when the
// worker stops, so that a section begun is finished.
func opCtx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), opTimeout)
}

// invoke records the start of op on the loop's object.
func (l *loop) invoke(op string, e history.Event) *history.Op {
	e.Workload, e.Name, e.Op = l.wl, l.object, op
	o, err := l.w.hist.Invoke(e)
	if err != nil {
		fatal(err)
	}
	return o
}

// done records the completion of o.
func done(o *history.Op, typ string, e history.Event) {
	if err := o.Done(typ, e); err != nil {
		fatal(err)
	}
}

// fatal ends a process whose history cannot be written: what it would do
// next could not be checked.
func fatal(err error) {
	fmt.Fprintln(os.Stderr, "worker: history:", err)
	os.Exit(1)
}

// acquired records the outcome of an acquisition: ok; fail when it
// certainly took nothing (its wait ended, or relock undid it for want of a
// replica's acknowledgement); info otherwise (a Redis error: it may have
// taken the lock).
func acquired(o *history.Op, err error, e history.Event) bool {
	switch {
	case err == nil:
		done(o, history.OK, e)
		return true
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled),
		errors.Is(err, rlock.ErrNotReplicated):
		done(o, history.Fail, history.Event{Error: err.Error()})
	default:
		done(o, history.Info, history.Event{Error: err.Error()})
	}
	return false
}

// released records the outcome of a release, and reports whether it is
// over: ok; fail when the holder no longer held it (ErrNotHeld); info
// otherwise, when it may be sent again.
func released(o *history.Op, err error) bool {
	switch {
	case err == nil:
		done(o, history.OK, history.Event{})
	case errors.Is(err, rlock.ErrNotHeld):
		done(o, history.Fail, history.Event{Error: err.Error()})
	default:
		done(o, history.Info, history.Event{Error: err.Error()})
		return false
	}
	return true
}

// finished records an operation on the resource: ok, or info with the
// error.
func finished(o *history.Op, err error, e history.Event) bool {
	if err != nil {
		done(o, history.Info, history.Event{Error: err.Error()})
		return false
	}
	done(o, history.OK, e)
	return true
}

// watch records "lost" when lost closes during the section; the returned
// func ends the watch at the section's end, recording a loss that came
// before it.
func (l *loop) watch(lost <-chan struct{}, token int64) (end func()) {
	stop, ended := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(ended)
		select {
		case <-lost:
		case <-stop:
			select {
			case <-lost:
			default:
				return
			}
		}
		e := history.Event{Workload: l.wl, Name: l.object, Op: "lost", Token: token}
		if err := l.w.hist.Instant(e); err != nil {
			fatal(err)
		}
	}()
	return func() {
		close(stop)
		<-ended
	}
}
