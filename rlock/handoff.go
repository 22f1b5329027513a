package rlock

import (
	"container/list"
	"sync"
	"time"

	"github.com/relock-go/relock/scripts"
)

// handoffs are a Client's waiters for its Mutexes, by lock name, oldest
// first: an Unlock by another owner of the same Client may pass the lock
// straight to one of them in its release script (the waiter's field
// written, its lease set, nothing published), so the waiter holds the lock
// when the release's reply comes, and the lock is never free between the
// two holders. The rules, which keep other clients their turns:
//
//   - the waiter passed the lock is the oldest one of another owner that
//     holds nothing and is not busy with a command of its own (reserve);
//   - after maxKept releases passed on in a row, one is published, which
//     wakes the first waiter of every Client (pubsub's share decides which
//     goes first);
//   - while clients other than relock's listen on the lock's channel and
//     take their turns (Redisson's, counted by the release scripts and
//     handed to the Hub: listenersAt), no release is passed on;
//   - an acquisition of this Client that starts within the step-aside
//     after a release it published and someone heard, with no waiter of
//     its own to queue behind, lets the woken waiters go first (heard,
//     yieldUntil): minStepAside, or the Hub's adaptive step while other
//     clients listen (pubsub.Hub.StepAside).
//
// docs/architecture.md ("Hand-offs") tells why.
type handoffs struct {
	mu    sync.Mutex
	names map[string]*handoffWaiters
	// yieldTill is until when this Client's new acquisitions of a lock let
	// the waiters woken by its last published release go first, by lock
	// name; entries past are dropped as others are added.
	yieldTill map[string]time.Time
}

// minStepAside is how long after a release this Client published, and
// someone heard, its new acquisitions of that lock let the woken waiters
// go first when no other connection is known to listen: more than a
// wake-up and a retry take in this Client, far less than a lease.
const minStepAside = time.Millisecond

// heard records that this Client just published a release of the lock
// called name, and someone heard it; others is how long to step aside for
// the waiters of other clients (pubsub.Hub.StepAside: 0 when none
// listens).
func (h *handoffs) heard(name string, others time.Duration) {
	h.mu.Lock()
	defer h.mu.Unlock()
	now := time.Now()
	if h.yieldTill == nil {
		h.yieldTill = make(map[string]time.Time)
	}
	if len(h.yieldTill) >= 64 {
		for n, till := range h.yieldTill {
			if now.After(till) {
				delete(h.yieldTill, n)
			}
		}
	}
	h.yieldTill[name] = now.Add(max(others, minStepAside))
}

// yieldUntil is until when a new acquisition of the lock called name lets
// the waiters woken by this Client's last release of it go first: zero
// when that step-aside is over.
func (h *handoffs) yieldUntil(name string) time.Time {
	h.mu.Lock()
	defer h.mu.Unlock()
	till, ok := h.yieldTill[name]
	if !ok {
		return time.Time{}
	}
	if !time.Now().Before(till) {
		delete(h.yieldTill, name)
		return time.Time{}
	}
	return till
}

// stepAside is how long this Client lets the waiters of other clients on
// channel go first after a release or a win, and whether clients other
// than relock's listen there and take their turns (pubsub.Hub.StepAside):
// 0 when none listens, or in spin mode.
func (c *Client) stepAside(channel string) (time.Duration, bool) {
	if w := c.wire.Load(); w != nil && w.hub != nil {
		return w.hub.StepAside(channel)
	}
	return 0, false
}

// countDue reports whether a release on channel is to count its
// listeners (pubsub.Hub.CountDue): not in spin mode, nor on a Redis
// Cluster with classic pub/sub, where a script counts one node's.
func (c *Client) countDue(channel string) bool {
	w := c.wire.Load()
	return w != nil && w.hub != nil && !c.classicCluster() && w.hub.CountDue(channel)
}

// listenersAt tells the Hub who listened on channel when a release of
// this Client was heard or passed on, as its script counted them
// (pubsub.Hub.Counted), and returns stepAside's answer with them. A
// script on a Redis Cluster with classic pub/sub counts one node's
// subscribers: those counts, and a reply that counted nobody, change
// nothing.
func (c *Client) listenersAt(channel string, ls scripts.Listeners) (time.Duration, bool) {
	w := c.wire.Load()
	if ls.Subscribers == 0 || w == nil || w.hub == nil || c.classicCluster() {
		return c.stepAside(channel)
	}
	return w.hub.Counted(channel, ls.Subscribers, ls.Relock)
}

// handoffWaiters are the waiters of one lock name, oldest first.
type handoffWaiters struct {
	waiting list.List // of *clientTurn
	kept    int       // releases passed on in a row
}

// maxKept is how many releases of a lock in a row a Client passes on to
// its own waiters before it publishes one, while no client other than
// relock's takes its turns on the lock's channel (then it passes none on).
const maxKept = 16

// add lists t, which listens for the lock's releases, as the newest waiter.
func (h *handoffs) add(t *clientTurn) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.names == nil {
		h.names = make(map[string]*handoffWaiters)
	}
	ws := h.names[t.o.name]
	if ws == nil {
		ws = &handoffWaiters{}
		h.names[t.o.name] = ws
	}
	t.listed = ws.waiting.PushBack(t)
}

// remove takes t off the list, if it is listed. A release that reserved t
// before keeps it reserved until it is done (it holds t's owner's mutex).
func (h *handoffs) remove(t *clientTurn) {
	if t.listed == nil {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	ws := h.names[t.o.name]
	ws.waiting.Remove(t.listed)
	t.listed = nil
	if ws.waiting.Len() == 0 {
		delete(h.names, t.o.name)
	}
}

// reserve picks the waiter to which the release of from's last hold may
// pass the lock: the oldest one of another owner that holds nothing and
// is not busy with a command of its own, while this Client is within its
// share. It returns that waiter with its owner's mutex held (the caller
// unlocks it once the release is done), or nil.
func (h *handoffs) reserve(from *owner) *clientTurn {
	if from.c.opts.replicas > 0 {
		return nil // an acquisition must be acknowledged by replicas
	}
	_, turns := from.c.stepAside(from.channel)
	h.mu.Lock()
	defer h.mu.Unlock()
	ws := h.names[from.name]
	if ws == nil {
		return nil
	}
	if turns || ws.kept >= maxKept {
		ws.kept = 0 // this release is published
		return nil
	}
	for el := ws.waiting.Front(); el != nil; el = el.Next() {
		t := el.Value.(*clientTurn)
		// TryLock: an owner busy with an attempt is passed over, and a
		// release never waits for another owner's mutex while it holds
		// its own.
		if t.o == from || !t.o.mu.TryLock() {
			continue
		}
		if h := t.o.hold; h != nil && !h.isOver() {
			t.o.mu.Unlock()
			continue
		}
		ws.kept++
		return t
	}
	return nil
}

// handedOver records that a release sent at sent passed the lock to t, as
// an attempt that took it would, and wakes t's goroutine. Called with t's
// owner's mutex held (reserve).
func (t *clientTurn) handedOver(sent time.Time) {
	o := t.o
	lease, renew := o.leaseOf(t.lease)
	o.hold = newHold(o, lease, renew, sent)
	o.c.wd.keep(o.hold)
	o.lastSent, o.retrySeq, o.waited = sent, 0, true
	t.handed = true
	t.sub().Poke()
}
