package rlock

import (
	"context"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/internal/keys"
	"github.com/relock-go/relock/scripts"
)

// renewBatch is the most locks renewed by one script call, as in Redisson.
const renewBatch = 100

// renewPhases is how many phases a renewal period is cut into: each hold
// is renewed at its own phase, the holds dealt over the phases in the order
// they were taken, so that a Client holding many locks sends a tenth of
// their renewals at a time instead of all at once.
const renewPhases = 10

// watchdog keeps the holds of a Client: one goroutine renews, every
// lease/3 and in batches, those taken without an explicit lease, and at
// Close every hold still kept ends. The period is cut into phases, each
// renewing its share of the holds. It only renews: a hold keeps its own
// state, and the watchdog tells it what a renewal found.
//
// It also watches every hold's lease, renewed or fixed, with one timer per
// phase rather than one per hold: a phase's timer is set for the earliest
// moment one of its holds would count as lost (hold.lossAt); when it
// fires, the holds whose moment has passed expire and the timer is set for
// the next. A renewal only moves moments later, so it leaves the timer
// alone (it fires early, finds the moment moved and is set again); a lease
// made shorter (Extend) sets it sooner (watch).
type watchdog struct {
	ctx     context.Context
	rdb     redis.UniversalClient
	lease   time.Duration
	cluster bool
	obs     Observer // nil when none
	phases  int      // of a renewal period
	// periodic, when not nil, runs as the loop starts and then at the
	// start of every renewal period (the Client's label).
	periodic func(context.Context)

	mu     sync.Mutex
	holds  []map[*hold]struct{} // the holds of each phase
	timers []*time.Timer        // each phase's loss timer; nil until needed
	armed  []time.Time          // when each phase's timer fires; zero when idle
	dealt  int                  // holds dealt to phases so far
	done   chan struct{}        // closed when the renewal goroutine has exited
}

func newWatchdog(ctx context.Context, rdb redis.UniversalClient, lease time.Duration, obs Observer, periodic func(context.Context)) *watchdog {
	_, cluster := rdb.(*redis.ClusterClient)
	// A phase lasts at least a millisecond.
	phases := int(min(max(lease/3/time.Millisecond, 1), renewPhases))
	wd := &watchdog{ctx: ctx, rdb: rdb, lease: lease, cluster: cluster, obs: obs, phases: phases, periodic: periodic,
		holds: make([]map[*hold]struct{}, phases), timers: make([]*time.Timer, phases), armed: make([]time.Time, phases), done: make(chan struct{})}
	for i := range wd.holds {
		wd.holds[i] = make(map[*hold]struct{})
	}
	go wd.run()
	return wd
}

// keep starts keeping h until it ends; a hold kept after Close ends at
// once.
func (wd *watchdog) keep(h *hold) {
	wd.mu.Lock()
	if wd.ctx.Err() != nil {
		wd.mu.Unlock()
		h.closed()
		return
	}
	h.phase = wd.dealt % wd.phases
	wd.dealt++
	wd.holds[h.phase][h] = struct{}{}
	at, _ := h.lossAt()
	wd.watchLocked(h.phase, at)
	wd.mu.Unlock()
}

// forget stops keeping h, which has ended.
func (wd *watchdog) forget(h *hold) {
	wd.mu.Lock()
	defer wd.mu.Unlock()
	delete(wd.holds[h.phase], h)
}

// watch makes sure that phase's timer fires by at.
func (wd *watchdog) watch(phase int, at time.Time) {
	wd.mu.Lock()
	defer wd.mu.Unlock()
	wd.watchLocked(phase, at)
}

// watchLocked is watch with mu held.
func (wd *watchdog) watchLocked(phase int, at time.Time) {
	if wd.ctx.Err() != nil || (!wd.armed[phase].IsZero() && !at.Before(wd.armed[phase])) {
		return
	}
	wd.armed[phase] = at
	if t := wd.timers[phase]; t != nil {
		t.Reset(time.Until(at))
		return
	}
	wd.timers[phase] = time.AfterFunc(time.Until(at), func() { wd.expire(phase) })
}

// expire runs when phase's timer fires: it ends the holds of the phase whose
// loss moment has passed, and sets the timer for the next.
func (wd *watchdog) expire(phase int) {
	now := time.Now()
	var due []*hold
	wd.mu.Lock()
	wd.armed[phase] = time.Time{}
	var next time.Time
	for h := range wd.holds[phase] {
		at, on := h.lossAt()
		switch {
		case !on:
		case !at.After(now):
			due = append(due, h)
		case next.IsZero() || at.Before(next):
			next = at
		}
	}
	if !next.IsZero() {
		wd.watchLocked(phase, next)
	}
	wd.mu.Unlock()
	for _, h := range due {
		h.expire()
	}
}

// close waits for the renewal goroutine, stops the loss timers, then ends
// every hold kept. The Client's context is already cancelled.
func (wd *watchdog) close() {
	<-wd.done
	wd.mu.Lock()
	for _, t := range wd.timers {
		if t != nil {
			t.Stop()
		}
	}
	wd.mu.Unlock()
	for _, h := range wd.kept() {
		h.closed()
	}
}

// kept returns the holds kept now.
func (wd *watchdog) kept() []*hold {
	wd.mu.Lock()
	defer wd.mu.Unlock()
	var hs []*hold
	for _, phase := range wd.holds {
		hs = slices.AppendSeq(hs, maps.Keys(phase))
	}
	return hs
}

// keptFor returns the holds kept now that phase renews.
func (wd *watchdog) keptFor(phase int) []*hold {
	wd.mu.Lock()
	defer wd.mu.Unlock()
	return slices.Collect(maps.Keys(wd.holds[phase]))
}

func (wd *watchdog) run() {
	defer close(wd.done)
	if wd.periodic != nil {
		wd.periodic(wd.ctx)
	}
	tick := wd.lease / 3 / time.Duration(wd.phases)
	start := time.Now()
	t := time.NewTicker(tick)
	defer t.Stop()
	// Turns are counted by the clock, not by ticks received: a ticker
	// drops the ticks of a goroutine the scheduler kept waiting, and
	// counting ticks would then stretch the renewal period past the
	// lease. The phases a late tick finds due are renewed together.
	next := 0 // the next phase to renew, counted from start
	// The holds whose renewal failed (no answer, a pool timeout) are
	// renewed again at the next tick rather than a period later: their
	// lease still has most of its time to run.
	var retry []*hold
	for {
		select {
		case now := <-t.C:
			due := int(now.Sub(start) / tick)
			next = max(next, due-wd.phases)
			hs := retry
			for ; next < due; next++ {
				phase := next % wd.phases
				if phase == 0 && wd.periodic != nil {
					wd.periodic(wd.ctx)
				}
				hs = append(hs, wd.keptFor(phase)...)
			}
			if len(retry) > 0 {
				hs = uniqueHolds(hs)
			}
			retry = wd.renew(hs)
		case <-wd.ctx.Done():
			return
		}
	}
}

// batch is one script call of a renewal: holds of one kind of renewal
// and, on Redis Cluster, one hash slot.
type batch struct {
	renew scripts.Renewer
	held  []scripts.Held
	holds []*hold
}

// uniqueHolds returns hs with each hold once.
func uniqueHolds(hs []*hold) []*hold {
	seen := make(map[*hold]bool, len(hs))
	return slices.DeleteFunc(hs, func(h *hold) bool {
		dup := seen[h]
		seen[h] = true
		return dup
	})
}

// renew renews the renewable holds of hs, batched by kind and hash slot,
// each kind's batches in one pipeline, and returns those whose renewal
// failed.
func (wd *watchdog) renew(hs []*hold) (failed []*hold) {
	type group struct {
		renew    scripts.Renewer
		hashSlot int
	}
	open := make(map[group]*batch)
	var batches []*batch
	for _, h := range hs {
		if !h.renewable() {
			continue
		}
		g := group{renew: h.renewal.renew}
		if wd.cluster {
			g.hashSlot = keys.Slot(h.key)
		}
		b := open[g]
		if b == nil || len(b.held) == renewBatch {
			b = &batch{renew: g.renew}
			open[g] = b
			batches = append(batches, b)
		}
		b.held = append(b.held, h.renewal.held)
		b.holds = append(b.holds, h)
	}
	byRenewer := make(map[scripts.Renewer][]*batch)
	for _, b := range batches {
		byRenewer[b.renew] = append(byRenewer[b.renew], b)
	}
	for renew, bs := range byRenewer {
		failed = append(failed, wd.renewBatches(renew, bs)...)
	}
	return failed
}

// renewBatches renews bs with renew, in one pipeline, tells each hold
// what its renewal found, and returns the holds of the batches that failed.
func (wd *watchdog) renewBatches(renew scripts.Renewer, bs []*batch) (failed []*hold) {
	held := make([][]scripts.Held, len(bs))
	for i, b := range bs {
		held[i] = b.held
	}
	sent := time.Now()
	renewed, errs := renew.Renew(wd.ctx, wd.rdb, wd.lease, held)
	took := time.Since(sent)
	for i, b := range bs {
		if wd.obs != nil {
			e := Event{Type: EventRenewed, Time: time.Now(), Count: len(b.holds), Latency: took, Err: errs[i]}
			if errs[i] != nil {
				e.Type = EventRenewalFailed
			}
			wd.obs.ObserveLock(e)
		}
		if errs[i] != nil {
			// Unreachable: tried again at the next tick; the hold's timer
			// reports it lost if no renewal succeeds before its lease ends.
			failed = append(failed, b.holds...)
			continue
		}
		for j, h := range b.holds {
			if renewed[i][j] {
				h.renewed(sent)
			} else {
				h.lostNow(lostAtRenewal, true)
			}
		}
	}
	return failed
}
