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
// written, its lease set, nothing published). The waiter then holds the
// lock when the release's reply comes: no message, no wake-up of other
// Clients' waiters, no acquire round trip, and the lock is never free
// between the two holders for a poller to take.
//
// Other Clients keep their turns: after maxKept releases passed on in a
// row, one is published, which wakes the first waiter of every Client
// (Redisson's too), and the Clients' shares of published releases decide
// which goes first (pubsub's share). So the Clients take the lock in
// batches, in turn, while the waiters of each are served in arrival
// order; and waiters that do not listen (another process's spinners) find
// the lock free now and then.
//
// And a release that this Client published, and that woke waiters
// elsewhere, is theirs: an acquisition of this Client that starts within
// the step-aside after it, with no waiter of its own to queue behind, lets
// them take the lock first (it listens, and attempts after the step-aside)
// instead of taking it back before their retries arrive. The step-aside is
// minStepAside, or while clients other than relock's listen on the lock's
// channel (Redisson's: they do not subscribe to its presence marker,
// keys.Presence) the Hub's adaptive one (pubsub.Hub.StepAside: 4 ms,
// doubling up to 64 ms while they keep coming too late, as Redisson's
// threads do, which need a few milliseconds to wake and retry).
//
// A Redisson waiter is noticed at once: every release script that is
// heard, or passes the lock on, counts the channel's subscribers and the
// relock Clients among them, and the Client hands the counts to its Hub
// (listenersAt). While such clients listen and take their turns, a Client
// passes no release on to its own waiters: each of its acquisitions is
// one turn, and each release is published, which wakes a thread of every
// Redisson client, while its own woken waiter steps aside. So the lock
// changes sides from the Redisson waiter's first wait, whatever the burst
// of this Client's waiters. A listener that keeps coming too late even at
// the longest step (one that never takes the lock) no longer takes turns
// (pubsub's share), and the Client passes releases on again. Among relock
// Clients only, nothing changes.
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
