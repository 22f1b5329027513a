package rlock

import (
	"cmp"
	"slices"
	"time"
)

// Activity is what a Client's owners hold and wait for at one moment, as
// the Client knows it (Client.Activity): Inspect tells what Redis knows.
type Activity struct {
	Holds   []HoldInfo
	Waiters []WaiterInfo
}

// HoldInfo is one hold of a Client's owner.
type HoldInfo struct {
	Name  string
	Kind  Kind
	Mode  string // ModeRead or ModeWrite for a read-write lock
	Owner string
	Count int       // acquisitions not yet released
	Since time.Time // when the first acquisition was sent
	Lease time.Duration
	// Watchdog reports that the watchdog renews the hold; LastRenewal is
	// when its last successful renewal was sent (zero before the first).
	Watchdog    bool
	LastRenewal time.Time
	// LeaseEnd is the latest time the lease is known to last.
	LeaseEnd time.Time
}

// WaiterInfo is one acquisition of a Client's owner that waits for a lock,
// or one wait of the Client for a semaphore's permits or a latch's zero.
// Each goroutine that waits is one: of the goroutines sharing a handle,
// the one whose acquisition is in Redis (where a fair lock's queue shows
// the owner once), and each waiting in the process behind it or behind
// the handle's hold, with the same Owner and no attempt yet.
type WaiterInfo struct {
	Name  string
	Kind  Kind
	Mode  string // ModeRead or ModeWrite for a read-write lock
	Owner string // "" for a semaphore or a latch, which have no owners
	// Permits is how many permits a semaphore's waiter waits for; 0 for
	// the other kinds.
	Permits  int
	Since    time.Time // when the acquisition began
	Attempts int       // acquire scripts run so far (a latch's: reads); 0 behind a goroutine of its handle
	Wakeups  int       // releases that woke it so far (see EventWoken)
}

// Activity lists the holds and the waiting acquisitions of this Client's
// owners, and the waits of its semaphores and latches, by name then age.
// It sends nothing to Redis.
func (c *Client) Activity() Activity {
	var a Activity
	for _, h := range c.wd.kept() {
		if info, ok := h.info(); ok {
			a.Holds = append(a.Holds, info)
		}
	}
	for _, w := range c.waiters.list() {
		info := w.info
		info.Attempts, info.Wakeups = int(w.attempts.Load()), int(w.wakeups.Load())
		a.Waiters = append(a.Waiters, info)
	}
	slices.SortFunc(a.Holds, func(x, y HoldInfo) int {
		return cmp.Or(cmp.Compare(x.Name, y.Name), x.Since.Compare(y.Since), cmp.Compare(x.Owner, y.Owner))
	})
	slices.SortFunc(a.Waiters, func(x, y WaiterInfo) int {
		return cmp.Or(cmp.Compare(x.Name, y.Name), x.Since.Compare(y.Since), cmp.Compare(x.Owner, y.Owner))
	})
	return a
}

// info describes the hold; false once it is over.
func (h *hold) info() (HoldInfo, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.over != nil {
		return HoldInfo{}, false
	}
	o := h.by
	return HoldInfo{
		Name: o.name, Kind: o.kindOf, Mode: o.mode, Owner: o.id, Count: h.count, Since: h.since,
		Lease: h.lease, Watchdog: h.renew && !h.stopped, LastRenewal: h.renewedAt, LeaseEnd: h.deadline,
	}, true
}
