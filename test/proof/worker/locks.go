package main

import (
	"context"
	"time"

	"github.com/relock-go/relock/rlock"
	"github.com/relock-go/relock/test/proof/history"
)

// fenced: take the fenced lock, read the fenced register with the token,
// pause, write register+1 with the token. The work runs under the hold's
// Context, as users are told: a holder that knows it lost the lock writes
// nothing more, and one paused past its lease does not know it.
func (l *loop) fenced(ctx context.Context, f *rlock.FencedMutex) bool {
	token, ok := l.acquire(ctx, "", f.Lock)
	if !ok {
		return false
	}
	work, stop := f.Context(context.Background())
	end := l.watch(f.Lost(), token)
	l.fencedWork(work, token)
	stop()
	end()
	l.unlock(f.Unlock)
	return true
}

// fencedWork is the fenced section: read, pause, write, each step only
// while work lasts.
func (l *loop) fencedWork(work context.Context, token int64) {
	if work.Err() != nil {
		return
	}
	octx, cancel := opCtx()
	defer cancel()
	o := l.invoke("read", history.Event{Token: token})
	v, err := l.w.store.Read(octx, l.object, token)
	if !finished(o, err, history.Event{Value: v, Token: token}) {
		return
	}
	l.work(work)
	if work.Err() != nil {
		return
	}
	o = l.invoke("write", history.Event{Value: v + 1, Token: token})
	ok, err := l.w.store.Write(octx, l.object, token, v+1)
	switch {
	case err != nil:
		done(o, history.Info, history.Event{Error: err.Error()})
	case ok:
		done(o, history.OK, history.Event{Value: v + 1, Token: token})
	default:
		done(o, history.Fail, history.Event{Value: v + 1, Token: token, Error: "rejected: a later token was seen"})
	}
}

// plain: the same counter under a Mutex, read and written with GET and
// SET, unfenced.
func (l *loop) plain(ctx context.Context, m *rlock.Mutex) bool {
	if _, ok := l.acquire(ctx, "", untokened(m.Lock)); !ok {
		return false
	}
	work, stop := m.Context(context.Background())
	end := l.watch(m.Lost(), 0)
	l.increment(work, "")
	stop()
	end()
	l.unlock(m.Unlock)
	return true
}

// increment reads the plain register, pauses, and writes it plus one, each
// step only while work lasts.
func (l *loop) increment(work context.Context, mode string) {
	v, ok := l.read(work, mode)
	if !ok {
		return
	}
	l.work(work)
	if work.Err() != nil {
		return
	}
	octx, cancel := opCtx()
	defer cancel()
	o := l.invoke("write", history.Event{Mode: mode, Value: v + 1})
	finished(o, l.w.store.Set(octx, l.object, v+1), history.Event{Value: v + 1})
}

// read reads the plain register while work lasts.
func (l *loop) read(work context.Context, mode string) (int64, bool) {
	if work.Err() != nil {
		return 0, false
	}
	octx, cancel := opCtx()
	defer cancel()
	o := l.invoke("read", history.Event{Mode: mode})
	v, err := l.w.store.Get(octx, l.object)
	return v, finished(o, err, history.Event{Value: v})
}

// fair: take the fair lock, pause under its Context, release.
func (l *loop) fair(ctx context.Context, m *rlock.FairMutex) bool {
	if _, ok := l.acquire(ctx, "", untokened(m.Lock)); !ok {
		return false
	}
	work, stop := m.Context(context.Background())
	end := l.watch(m.Lost(), 0)
	l.work(work)
	stop()
	end()
	l.unlock(m.Unlock)
	return true
}

// readShare is the share of the read-write workload's iterations that
// read.
const readShare = 0.6

// rw: readers read the plain register under the read lock, writers
// increment it under the write lock.
func (l *loop) rw(ctx context.Context, rw *rlock.RWMutex) bool {
	mode := rlock.ModeWrite
	if l.rng.Float64() < readShare {
		mode = rlock.ModeRead
	}
	lock, unlock, lost, work := rw.Lock, rw.Unlock, rw.Lost, rw.Context
	if mode == rlock.ModeRead {
		lock, unlock, lost, work = rw.RLock, rw.RUnlock, rw.RLost, rw.RContext
	}
	if _, ok := l.acquire(ctx, mode, untokened(lock)); !ok {
		return false
	}
	wctx, stop := work(context.Background())
	end := l.watch(lost(), 0)
	if mode == rlock.ModeRead {
		if _, ok := l.read(wctx, mode); ok {
			l.work(wctx)
		}
	} else {
		l.increment(wctx, mode)
	}
	stop()
	end()
	l.unlockMode(unlock, mode)
	return true
}

// unlock records a release made with unlock.
func (l *loop) unlock(unlock func(context.Context) error) { l.unlockMode(unlock, "") }

// releaseTries is how many times a release that failed without an answer
// from Redis is sent: as users are told, an Unlock that returned such an
// error can simply be called again.
const releaseTries = 3

func (l *loop) unlockMode(unlock func(context.Context) error, mode string) {
	for i := range releaseTries {
		if i > 0 {
			time.Sleep(backoff)
		}
		octx, cancel := opCtx()
		o := l.invoke("release", history.Event{Mode: mode})
		over := released(o, unlock(octx))
		cancel()
		if over {
			return
		}
	}
}
