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

// flagKinds are the --kind values of inspect and watch: the kinds Redis
// does not tell apart by itself, and the rate limiter's (with it, a name
// that holds anything else is an error, and one that holds nothing is a
// limiter with no rate).
var flagKinds = []rlock.Kind{rlock.KindSemaphore, rlock.KindPermitSemaphore, rlock.KindCountDownLatch, rlock.KindRateLimiter}

// rateView is rlock.Rate as relock prints it.
type rateView struct {
	Limit          int   `json:"limit"`
	IntervalMillis int64 `json:"interval_ms"`
	PerClient      bool  `json:"per_client"`
	// KeepAliveMillis is how long the limiter is kept without an
	// acquisition; 0: for ever.
	KeepAliveMillis int64 `json:"keep_alive_ms"`
}

// rateClientView is rlock.RateClient as relock prints it: one client's
// share of a rate limiter per client.
type rateClientView struct {
	Client string `json:"client"`
	// Label is that Client's label (rlock.WithClientName), absent when it
	// has none.
	Label     *rlock.ClientLabel `json:"label,omitempty"`
	Available int64              `json:"available"`
}

// String is the rate as inspect says it: "100 per 1s, overall".
func (r rateView) String() string {
	s := fmt.Sprintf("%d per %s", r.Limit, duration(r.IntervalMillis))
	if r.PerClient {
		s += ", per client"
	} else {
		s += ", overall"
	}
	if r.KeepAliveMillis > 0 {
		s += ", kept " + duration(r.KeepAliveMillis) + " idle"
	}
	return s
}

// countOf sets v's count, leased permits and rate from info, at now.
func (v *lockView) countOf(info rlock.LockInfo, now time.Time) {
	if !info.Kind.Counting() {
		return
	}
	v.Count = &info.Count
	if r := info.Rate; r != nil {
		v.Rate = &rateView{Limit: r.Limit, IntervalMillis: r.Interval.Milliseconds(), PerClient: r.PerClient, KeepAliveMillis: r.KeepAlive.Milliseconds()}
		if r.PerClient {
			// info.Count is relock's own share, which it never uses.
			v.Count, v.Clients = nil, make([]rateClientView, len(info.RateClients))
			for i, c := range info.RateClients {
				v.Clients[i] = rateClientView{Client: c.Client, Label: c.Label, Available: c.Available}
			}
		}
	}
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
// count and subscribers, then a permit-expirable semaphore's leases; a
// rate limiter as writeRate does.
func writeCount(w io.Writer, v lockView) {
	if v.Kind == string(rlock.KindRateLimiter) {
		writeRate(w, v)
		return
	}
	kind, count := v.Kind, "count"
	switch rlock.Kind(v.Kind) {
	case rlock.KindCount:
		kind += " (a semaphore's permits, a latch's count or any counter, which Redis keeps alike: --kind semaphore or --kind count-down-latch reads it as one)"
		if v.RateLimiter != "" {
			kind = fmt.Sprintf("count: the permits kept by the rate limiter %q (relock inspect %s shows it)", v.RateLimiter, v.RateLimiter)
		}
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

// writeRate writes a rate limiter as inspect shows it: its rate and the
// permits available now, or, for a rate per client, a table of the
// clients that took permits, each with its own.
func writeRate(w io.Writer, v lockView) {
	facts := [][]string{{"name", v.Name}, {"kind", v.Kind}, {"rate", "none set (TrySetRate or SetRate sets one; every acquisition needs one)"}}
	if v.Rate != nil {
		facts[2][1] = v.Rate.String()
	}
	if v.Count != nil {
		writeTable(w, "", append(facts, []string{"available", strconv.FormatInt(*v.Count, 10)}))
		return
	}
	writeTable(w, "", facts)
	if len(v.Clients) == 0 {
		fmt.Fprintf(w, "clients: none has taken permits (each has %d available)\n", v.Rate.Limit)
		return
	}
	fmt.Fprintln(w, "clients (each has the rate; those whose keys are in Redis):")
	rows := [][]string{{"CLIENT", "LABEL", "AVAILABLE"}}
	for _, c := range v.Clients {
		rows = append(rows, []string{c.Client, labelText(c.Label), strconv.FormatInt(c.Available, 10)})
	}
	writeTable(w, "  ", rows)
}
