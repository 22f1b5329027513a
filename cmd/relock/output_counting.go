package main

import (
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/relock-go/relock/rlock"
)

// permitView is rlock.LeasedPermit as relock prints it.
type permitView struct {
	ID string `json:"id"`
	// Expiry is when the lease ends, absent when it never does;
	// ExpiresInMillis is the time left until then (negative once passed:
	// the permit comes back at the next operation on the semaphore).
	Expiry          time.Time `json:"expiry,omitzero"`
	ExpiresInMillis *int64    `json:"expires_in_ms,omitempty"`
}

// countingKinds are the --kind values of inspect: the kinds Redis does not
// tell apart by itself.
var countingKinds = []rlock.Kind{rlock.KindSemaphore, rlock.KindPermitSemaphore, rlock.KindCountDownLatch}

// countOf sets v's count and leased permits from info, at now.
func (v *lockView) countOf(info rlock.LockInfo, now time.Time) {
	if !info.Kind.Counting() {
		return
	}
	v.Count = &info.Count
	v.Permits = make([]permitView, len(info.Permits))
	for i, p := range info.Permits {
		v.Permits[i] = permitView{ID: p.ID}
		if !p.Expiry.IsZero() {
			left := p.Expiry.Sub(now).Milliseconds()
			v.Permits[i].Expiry, v.Permits[i].ExpiresInMillis = p.Expiry.UTC(), &left
		}
	}
}

// writeCount writes a semaphore or a latch as inspect shows it: its kind,
// count and subscribers, then a permit-expirable semaphore's leases.
func writeCount(w io.Writer, v lockView) {
	kind, count := v.Kind, "count"
	switch rlock.Kind(v.Kind) {
	case rlock.KindCount:
		kind += " (a semaphore's permits, a latch's count or any counter, which Redis keeps alike: --kind semaphore or --kind count-down-latch reads it as one)"
	case rlock.KindSemaphore, rlock.KindPermitSemaphore:
		count = "available"
	}
	value := strconv.FormatInt(*v.Count, 10)
	if v.CountSet != nil && !*v.CountSet && count == "available" {
		value = "0: no permits set (TrySetPermits or AddPermits sets them; Acquire waits until then)"
	}
	writeTable(w, "", [][]string{
		{"name", v.Name},
		{"kind", kind},
		{count, value},
		{"subscribers", strconv.Itoa(v.Subscribers)},
	})
	if v.Kind != string(rlock.KindPermitSemaphore) {
		return
	}
	if len(v.Permits) == 0 {
		fmt.Fprintln(w, "leased permits: none")
		return
	}
	fmt.Fprintln(w, "leased permits (earliest expiry first):")
	rows := [][]string{{"ID", "EXPIRES"}}
	for _, p := range v.Permits {
		expires := "never"
		if p.ExpiresInMillis != nil {
			expires = deadlineText(*p.ExpiresInMillis)
		}
		rows = append(rows, []string{p.ID, expires})
	}
	writeTable(w, "  ", rows)
}
