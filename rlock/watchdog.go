package rlock

import (
	"context"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/internal/keys"
	"github.com/relock-go/relock/scripts"
)

// renewBatch is the most locks renewed by one script call, as in Redisson.
const renewBatch = 100

// hold is one owner's holding of a lock, from its first acquisition to its
// last release or its loss. Its mutable fields are guarded by watchdog.mu.
type hold struct {
	key, owner string
	lease      time.Duration // re-armed by reentry, partial unlock and renewal
	renew      bool          // kept alive by the watchdog
	lost       chan struct{} // closed when the hold is lost
	deadline   time.Time     // latest time the lease is known to last
	timer      *time.Timer   // fires at deadline
	gone       bool          // released or lost: no longer tracked
	releasing  bool          // a release is in flight: absence is not loss
	// stopped: an Unlock of the last acquisition could not be confirmed,
	// so the watchdog no longer renews the hold; it expires within its
	// lease unless the owner locks again.
	stopped bool
	// ends are called with the cause when the hold ends (Context).
	ends   map[uint64]func(error)
	nextID uint64
}

// watchdog tracks every hold of a Client: one goroutine renews the leases
// of the holds taken without an explicit lease, in batches, every lease/3;
// a timer per hold closes its Lost channel if its lease runs out first.
type watchdog struct {
	ctx     context.Context
	rdb     redis.UniversalClient
	lease   time.Duration
	cluster bool

	mu    sync.Mutex
	holds map[*hold]struct{}
	done  chan struct{} // closed when the renewal goroutine has exited
}

func newWatchdog(ctx context.Context, rdb redis.UniversalClient, lease time.Duration) *watchdog {
	_, cluster := rdb.(*redis.ClusterClient)
	wd := &watchdog{ctx: ctx, rdb: rdb, lease: lease, cluster: cluster, holds: make(map[*hold]struct{}), done: make(chan struct{})}
	go wd.run()
	return wd
}

// add starts tracking a new hold whose lease was set by a command sent at sent.
func (wd *watchdog) add(key, owner string, lease time.Duration, renew bool, sent time.Time) *hold {
	h := &hold{key: key, owner: owner, lease: lease, renew: renew, lost: make(chan struct{}), deadline: sent.Add(lease)}
	wd.mu.Lock()
	defer wd.mu.Unlock()
	if wd.ctx.Err() != nil {
		// Closed meanwhile: nothing will keep or watch this hold.
		h.gone = true
		close(h.lost)
		return h
	}
	h.timer = time.AfterFunc(time.Until(h.deadline), func() { wd.expire(h) })
	wd.holds[h] = struct{}{}
	return h
}

// extend records that h's lease was re-armed by a command sent at sent.
func (wd *watchdog) extend(h *hold, sent time.Time) {
	wd.mu.Lock()
	defer wd.mu.Unlock()
	if h.gone {
		return
	}
	if d := sent.Add(h.lease); d.After(h.deadline) {
		h.deadline = d
		h.timer.Reset(time.Until(d))
	}
}

// setLease records that h's lease was set to lease by a command sent at
// sent: later re-arms use it, and the lease now ends at sent + lease, even
// if that is sooner than before.
func (wd *watchdog) setLease(h *hold, lease time.Duration, sent time.Time) {
	wd.mu.Lock()
	defer wd.mu.Unlock()
	if h.gone {
		return
	}
	h.lease, h.deadline = lease, sent.Add(lease)
	h.timer.Reset(time.Until(h.deadline))
}

// renewing turns the watchdog's renewal of h off (a last Unlock that could
// not be confirmed) or back on (the owner locked again).
func (wd *watchdog) renewing(h *hold, on bool) {
	wd.mu.Lock()
	defer wd.mu.Unlock()
	h.stopped = !on
}

// release stops tracking h after its last release.
func (wd *watchdog) release(h *hold) {
	wd.mu.Lock()
	defer wd.mu.Unlock()
	wd.drop(h, ErrNotHeld)
}

// onEnd arranges for end to be called with the cause when h ends: at once
// if it has ended. The returned function cancels the arrangement.
func (wd *watchdog) onEnd(h *hold, end func(error)) (cancel func()) {
	wd.mu.Lock()
	defer wd.mu.Unlock()
	if h.gone {
		cause := ErrNotHeld
		if wd.isLost(h) {
			cause = ErrLost
		}
		end(cause)
		return func() {}
	}
	if h.ends == nil {
		h.ends = make(map[uint64]func(error))
	}
	id := h.nextID
	h.nextID++
	h.ends[id] = end
	return func() {
		wd.mu.Lock()
		defer wd.mu.Unlock()
		delete(h.ends, id)
	}
}

// releasing marks whether a release of h is in flight, so that a renewal
// that finds the lock already released does not report it lost.
func (wd *watchdog) releasing(h *hold, on bool) {
	wd.mu.Lock()
	defer wd.mu.Unlock()
	h.releasing = on
}

// lose stops tracking h and closes its Lost channel.
func (wd *watchdog) lose(h *hold) {
	wd.mu.Lock()
	defer wd.mu.Unlock()
	if !h.gone && !h.releasing {
		close(h.lost)
		wd.drop(h, ErrLost)
	}
}

// isLost reports whether h was lost.
func (wd *watchdog) isLost(h *hold) bool { return isClosed(h.lost) }

// drop stops tracking h, which ended for cause. Called with mu held.
func (wd *watchdog) drop(h *hold, cause error) {
	if h.gone {
		return
	}
	h.gone = true
	h.timer.Stop()
	delete(wd.holds, h)
	for _, end := range h.ends {
		end(cause)
	}
	h.ends = nil
}

// expire runs when h's timer fires: unless its lease was extended meanwhile,
// the lease ran out without a renewal reaching Redis.
func (wd *watchdog) expire(h *hold) {
	wd.mu.Lock()
	defer wd.mu.Unlock()
	if h.gone || time.Now().Before(h.deadline) {
		return
	}
	close(h.lost)
	wd.drop(h, ErrLost)
}

// close stops renewals, closes the Lost channel of every hold and waits for
// the renewal goroutine. The Client's context is already cancelled.
func (wd *watchdog) close() {
	<-wd.done
	wd.mu.Lock()
	defer wd.mu.Unlock()
	for h := range wd.holds {
		close(h.lost)
		wd.drop(h, ErrClosed)
	}
}

func (wd *watchdog) run() {
	defer close(wd.done)
	t := time.NewTicker(wd.lease / 3)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			wd.renewAll()
		case <-wd.ctx.Done():
			return
		}
	}
}

// renewAll renews every hold kept by the watchdog in one pipeline of
// batched script calls; on Redis Cluster a batch holds keys of one slot.
func (wd *watchdog) renewAll() {
	wd.mu.Lock()
	var batches [][]scripts.Held
	var owners [][]*hold
	bySlot := make(map[int]int) // slot -> index of its open batch
	for h := range wd.holds {
		if !h.renew || h.stopped {
			continue
		}
		slot := 0
		if wd.cluster {
			slot = keys.Slot(h.key)
		}
		i, ok := bySlot[slot]
		if !ok || len(batches[i]) == renewBatch {
			i = len(batches)
			bySlot[slot] = i
			batches = append(batches, nil)
			owners = append(owners, nil)
		}
		batches[i] = append(batches[i], scripts.Held{Key: h.key, Owner: h.owner})
		owners[i] = append(owners[i], h)
	}
	wd.mu.Unlock()
	if len(batches) == 0 {
		return
	}

	sent := time.Now()
	renewed, errs := scripts.Renew(wd.ctx, wd.rdb, wd.lease, batches)
	for i, hs := range owners {
		if errs[i] != nil {
			// Unreachable: the hold's timer reports it lost if no renewal
			// succeeds before its lease ends.
			continue
		}
		for j, h := range hs {
			if renewed[i][j] {
				wd.extend(h, sent)
			} else {
				wd.lose(h)
			}
		}
	}
}
