package failover

import (
	"context"
	"errors"
	"maps"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/relock-go/relock/rlock"
	"github.com/relock-go/relock/test/chaos"
	"github.com/relock-go/relock/test/testkit"
)

// workload is contention on a few fenced locks: every owner goroutine
// locks, works in steps that write its token to the lock's token-checking
// store (chaos.Store), and unlocks, again and again. It records every
// critical section in a chaos.History, and keeps the holds that are
// reported held and not yet unlocked, so that a test can look them up on
// a new master.
type workload struct {
	names []string
	lease time.Duration
	hist  chaos.History

	// freeze is held shared by an owner from just before it stops being
	// registered in held until its Unlock has an answer, and exclusively by
	// freezeHolds: while a test looks up the registered holds, none of them
	// is released.
	freeze sync.RWMutex

	mu     sync.Mutex
	held   map[*holding]struct{}
	all    []*holding // every acquisition, in order
	stores map[string]*chaos.Store
	top    map[string]int64     // the highest token granted, per lock
	after  time.Time            // acquisitions are counted from here; zero: not yet
	since  map[string]int       // acquisitions per lock since after
	first  map[string]time.Time // the first of them, per lock
	resume int                  // acquisitions per lock since after that close resumed
	// resumed is closed once every lock had resume acquisitions since after.
	resumed chan struct{}
	// warm is closed once warmUp sections were filed.
	warm    chan struct{}
	warmUp  int
	filed   int
	lockErr map[string]int // failed Locks, by error

	wg   sync.WaitGroup
	stop context.CancelFunc
}

// holding is one acquisition reported held, as the owner saw it.
type holding struct {
	name, owner string
	token       int64
	lost        <-chan struct{}
	at          time.Time // when Lock returned

	// Set by lookUp, under an exclusive freeze.
	checked, missing bool
	// Set by the owner when its Unlock answered.
	lostBeforeUnlock bool
	unlockErr        error
}

// Workload shape: 3 Clients × 2 locks × 2 goroutines per Client and lock,
// each critical section 4 steps 10 ms apart.
const (
	workClients    = 3
	workPerClient  = 2
	workSteps      = 4
	workStepGap    = 10 * time.Millisecond
	workRetryPause = 20 * time.Millisecond
)

// startWorkload starts the owners on clients and returns once warmUp
// critical sections were filed. The owners stop with the test, or earlier
// with stopWorkload.
func startWorkload(t *testing.T, clients []*rlock.Client, names []string, lease time.Duration, warmUp int) *workload {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	w := &workload{
		names: names, lease: lease, stop: cancel,
		held: make(map[*holding]struct{}), stores: make(map[string]*chaos.Store),
		top: make(map[string]int64), since: make(map[string]int), first: make(map[string]time.Time),
		resume: 3, resumed: make(chan struct{}), warm: make(chan struct{}), warmUp: warmUp,
		lockErr: make(map[string]int),
	}
	for _, n := range names {
		w.stores[n] = new(chaos.Store)
	}
	for _, c := range clients {
		for _, n := range names {
			for range workPerClient {
				w.wg.Add(1)
				go func() {
					defer w.wg.Done()
					w.own(ctx, c.NewFencedMutex(n))
				}()
			}
		}
	}
	t.Cleanup(w.stopWorkload)
	select {
	case <-w.warm:
	case <-time.After(within):
		t.Fatalf("%d critical sections not filed within %v", warmUp, within)
	}
	return w
}

// stopWorkload stops the owners and returns once every one has returned,
// its last hold unlocked.
func (w *workload) stopWorkload() {
	w.stop()
	w.wg.Wait()
}

// own is one owner's loop.
func (w *workload) own(ctx context.Context, m *rlock.FencedMutex) {
	name := m.Name()
	for ctx.Err() == nil {
		lctx, cancel := context.WithTimeout(ctx, 2*w.lease)
		token, err := m.Lock(lctx)
		cancel()
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, rlock.ErrClosed) {
				return
			}
			w.failed(err)
			testkit.Pause(ctx, workRetryPause)
			continue
		}
		h := &holding{name: name, owner: m.Owner(), token: token, lost: m.Lost(), at: time.Now()}
		w.acquired(h)
		x := w.hist.Begin(name, h.owner, token, h.lost, w.stores[name])
		for range workSteps {
			if !x.Step() {
				break
			}
			testkit.Pause(ctx, workStepGap)
		}
		x.Stop()

		w.freeze.RLock()
		w.mu.Lock()
		delete(w.held, h)
		w.mu.Unlock()
		h.lostBeforeUnlock = testkit.Closed(h.lost)
		h.unlockErr = w.unlock(m)
		w.freeze.RUnlock()
		x.Finish(h.unlockErr)
		w.filedOne()
	}
}

// unlock releases m, repeating an Unlock that failed until it has an
// answer (released, or not held) or two leases pass: Redis may be out of
// reach for the length of a failover.
func (w *workload) unlock(m *rlock.FencedMutex) error {
	patience := time.Now().Add(2 * w.lease)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), w.lease)
		err := m.Unlock(ctx)
		cancel()
		if err == nil || errors.Is(err, rlock.ErrNotHeld) || errors.Is(err, rlock.ErrClosed) || time.Now().After(patience) {
			return err
		}
		testkit.Pause(context.Background(), workRetryPause)
	}
}

// acquired registers a new hold and counts it.
func (w *workload) acquired(h *holding) {
	now := time.Now()
	w.mu.Lock()
	defer w.mu.Unlock()
	w.held[h] = struct{}{}
	w.all = append(w.all, h)
	w.top[h.name] = max(w.top[h.name], h.token)
	if w.after.IsZero() {
		return
	}
	if w.since[h.name] == 0 {
		w.first[h.name] = now
	}
	w.since[h.name]++
	for _, n := range w.names {
		if w.since[n] < w.resume {
			return
		}
	}
	select {
	case <-w.resumed:
	default:
		close(w.resumed)
	}
}

// failed counts a failed Lock by its error.
func (w *workload) failed(err error) {
	kind := "other: " + err.Error()
	switch {
	case errors.Is(err, rlock.ErrNotReplicated):
		kind = "ErrNotReplicated"
	case errors.Is(err, context.DeadlineExceeded):
		kind = "wait timed out"
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.lockErr) < 10 || w.lockErr[kind] > 0 {
		w.lockErr[kind]++
	}
}

// filedOne counts a filed section.
func (w *workload) filedOne() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.filed++
	if w.filed == w.warmUp {
		close(w.warm)
	}
}

// countFrom starts counting acquisitions per lock from now.
func (w *workload) countFrom() time.Time {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.after = time.Now()
	return w.after
}

// topTokens returns the highest token granted so far, per lock.
func (w *workload) topTokens() map[string]int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return maps.Clone(w.top)
}

// lookUp calls present for every hold reported held and not yet unlocked,
// none of which is released meanwhile, and marks those it reports absent
// as missing. It returns the holds it looked up.
func (w *workload) lookUp(present func(h *holding) bool) []*holding {
	w.freeze.Lock()
	defer w.freeze.Unlock()
	w.mu.Lock()
	hs := slices.Collect(maps.Keys(w.held))
	w.mu.Unlock()
	for _, h := range hs {
		h.checked, h.missing = true, !present(h)
	}
	return hs
}

// acquisitions returns every acquisition so far; call it after
// stopWorkload to read what owners recorded in them.
func (w *workload) acquisitions() []*holding {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.all)
}

// firstAfter returns when each lock was first acquired after countFrom.
func (w *workload) firstAfter() map[string]time.Time {
	w.mu.Lock()
	defer w.mu.Unlock()
	return maps.Clone(w.first)
}

// lockErrors returns the failed Locks by error.
func (w *workload) lockErrors() map[string]int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return maps.Clone(w.lockErr)
}
