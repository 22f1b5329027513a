package rlock

import (
	"container/list"
	"sync"
	"time"
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
//     goes first), and the Client steps aside (stepAsides);
//   - while clients other than relock's listen on the lock's channel and
//     take their turns (Redisson's, counted by the release scripts and
//     handed to the Hub: listenersAt), no release is passed on.
//
// docs/architecture.md ("Hand-offs") tells why.
type handoffs struct {
	mu    sync.Mutex
	names map[string]*handoffWaiters
}

// handoffsOf are the handoffs of each Client.
var handoffsOf = newKindState(func(*Client) *handoffs { return &handoffs{} })

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

// heir is the owner the lock is passed to, and the lease its acquisition
// asked for.
func (t *clientTurn) heir() (*owner, time.Duration) { return t.o, t.lease }

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
