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

// renewal is what the watchdog renews for one hold: the owner's field of
// the lock's hash, with its kind's renew script.
type renewal struct {
	renew scripts.Renewer
	held  scripts.Held
}

// renewTurns is how many turns a renewal period is cut into: each hold
// is renewed at its own turn, the holds dealt over the turns in the order
// they were taken, so that a Client holding many locks sends a tenth of
// their renewals at a time instead of all at once.
const renewTurns = 10

// watchdog keeps the holds of a Client: one goroutine renews, every
// lease/3 and in batches, those taken without an explicit lease, and at
// Close every hold still kept ends. The period is cut into turns, each
// renewing its share of the holds. It only renews: a hold keeps its own
// state, and the watchdog tells it what a renewal found.
type watchdog struct {
	ctx     context.Context
	rdb     redis.UniversalClient
	lease   time.Duration
	cluster bool
	obs     Observer // nil when none
	turns   int      // of a renewal period
	// periodic, when not nil, runs as the loop starts and then at the
	// start of every renewal period (the Client's label).
	periodic func(context.Context)

	mu    sync.Mutex
	holds map[*hold]int // the turn that renews each
	dealt int           // holds dealt to turns so far
	done  chan struct{} // closed when the renewal goroutine has exited
}

func newWatchdog(ctx context.Context, rdb redis.UniversalClient, lease time.Duration, obs Observer, periodic func(context.Context)) *watchdog {
	_, cluster := rdb.(*redis.ClusterClient)
	// A turn lasts at least a millisecond.
	turns := int(min(max(lease/3/time.Millisecond, 1), renewTurns))
	wd := &watchdog{ctx: ctx, rdb: rdb, lease: lease, cluster: cluster, obs: obs, turns: turns, periodic: periodic, holds: make(map[*hold]int), done: make(chan struct{})}
	go wd.run()
	return wd
}

// keep starts keeping h until it ends; a hold kept after Close ends at
// once.
func (wd *watchdog) keep(h *hold) {
	wd.mu.Lock()
	closed := wd.ctx.Err() != nil
	if !closed {
		wd.holds[h] = wd.dealt % wd.turns
		wd.dealt++
	}
	wd.mu.Unlock()
	if closed {
		h.closed()
		return
	}
	h.onEnd(func(error) {
		wd.mu.Lock()
		defer wd.mu.Unlock()
		delete(wd.holds, h)
	})
}

// close waits for the renewal goroutine, then ends every hold kept. The
// Client's context is already cancelled.
func (wd *watchdog) close() {
	<-wd.done
	for _, h := range wd.kept() {
		h.closed()
	}
}

// kept returns the holds kept now.
func (wd *watchdog) kept() []*hold {
	wd.mu.Lock()
	defer wd.mu.Unlock()
	return slices.Collect(maps.Keys(wd.holds))
}

// keptFor returns the holds kept now that turn renews.
func (wd *watchdog) keptFor(turn int) []*hold {
	wd.mu.Lock()
	defer wd.mu.Unlock()
	var hs []*hold
	for h, t := range wd.holds {
		if t == turn {
			hs = append(hs, h)
		}
	}
	return hs
}

func (wd *watchdog) run() {
	defer close(wd.done)
	if wd.periodic != nil {
		wd.periodic(wd.ctx)
	}
	t := time.NewTicker(wd.lease / 3 / time.Duration(wd.turns))
	defer t.Stop()
	for turn := 0; ; turn = (turn + 1) % wd.turns {
		select {
		case <-t.C:
			if turn == 0 && wd.periodic != nil {
				wd.periodic(wd.ctx)
			}
			wd.renew(wd.keptFor(turn))
		case <-wd.ctx.Done():
			return
		}
	}
}

// batch is one script call of a renewal: holds of one kind of renewal
// and, on Redis Cluster, one slot.
type batch struct {
	renew scripts.Renewer
	held  []scripts.Held
	holds []*hold
}

// renew renews the renewable holds of hs, batched by kind and slot, each
// kind's batches in one pipeline.
func (wd *watchdog) renew(hs []*hold) {
	type group struct {
		renew scripts.Renewer
		slot  int
	}
	open := make(map[group]*batch)
	var batches []*batch
	for _, h := range hs {
		if !h.renewable() {
			continue
		}
		g := group{renew: h.renewal.renew}
		if wd.cluster {
			g.slot = keys.Slot(h.key)
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
		wd.renewBatches(renew, bs)
	}
}

// renewBatches renews bs with renew, in one pipeline, and tells each hold
// what its renewal found.
func (wd *watchdog) renewBatches(renew scripts.Renewer, bs []*batch) {
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
			// Unreachable: the hold's timer reports it lost if no renewal
			// succeeds before its lease ends.
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
}
