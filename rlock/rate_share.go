package rlock

import (
	"math"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/relock-go/relock/scripts"
)

// rateShares are a Client's shares of its rate limiters, by name: how its
// acquisitions compete with other clients' for the permits that come back
// (docs/rate-limiter.md, "The share", tells why). The promises:
//   - after permits come back, a waiter attempts at a moment drawn within
//     the share's spread; while other clients contend (the spread grew),
//     so does each acquisition of the Client's line;
//   - the spread follows the permits other clients than relock's took
//     within the interval (each attempt's script counts them) against the
//     Client's own: it settles where the two are equal, and keeps its
//     least (leastSpread) while they take none;
//   - while no foreign permit is counted, a Client whose permits ran short
//     lags a probe (probeLag) twice an interval at most, at intervals of
//     minProbed or more, so that a Redisson waiter, which comes 3 ms and a
//     timer tick late, wins permits from its first interval;
//   - a Client alone is never held up while permits are there.
type rateShares struct {
	mu sync.Mutex
	m  map[string]*rateShare
	// exact: no probes, for tests that time waits to the millisecond.
	exact bool
}

// rateShare is a Client's share of one limiter.
type rateShare struct {
	spread, least time.Duration
	interval      time.Duration // the limiter's, as the last attempt read it
	own           []rateGrant   // this Client's grants within the last interval, oldest first
	probed        time.Time     // when the last probe was drawn (or the share began)
	// short: the last attempt was refused, or took the last permits.
	short bool
	// seen: the last count of foreign permits within the interval found
	// some; probes are for when it found none.
	seen bool
}

// rateGrant is a grant of n permits stamped at.
type rateGrant struct {
	at time.Time
	n  int64
}

// The bounds of a share's spread: the least (leastSpread) is at most
// minSpread; the longest a few of Redisson's ticks, and never more than a
// quarter of the limiter's interval. probesPerInterval probes are drawn
// per interval at most, at limiters of minProbed or more.
const (
	minSpread         = 4 * time.Millisecond
	maxSpread         = 200 * time.Millisecond
	probesPerInterval = 2
	// minProbed is the least interval with probes: its probes last 25 to
	// 50 ms, a shorter interval's would be over before a Redisson waiter
	// comes (3 ms, then its timer's tick), and would cost a Client alone
	// more of its rate (a probe's cost grows with the square of its part
	// of the interval).
	minProbed = 500 * time.Millisecond
)

var rateSharesOf = newKindState(func(*Client) *rateShares { return &rateShares{m: map[string]*rateShare{}} })

// lag is how long after the permits come back this Client's waiter of the
// limiter name, whose interval is interval, attempts, drawn at now: a
// probe's lag, when one is due, else at random within the spread.
func (s *rateShares) lag(name string, interval time.Duration, now time.Time) time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	sh := s.m[name]
	if sh == nil {
		sh = &rateShare{spread: leastSpread(interval), least: leastSpread(interval), interval: interval, probed: now}
		s.m[name] = sh
	}
	if d, ok := s.probe(sh, now); ok {
		return d
	}
	return rand.N(sh.spread)
}

// entryLag is how long an acquisition of this Client lets other clients
// come first before its first attempt, once the Client's earlier
// acquisitions of the limiter name are done, drawn at now: within the
// spread while other clients contend (it grew), even when permits are
// there: permits that come back together are shared, not taken by this
// Client's line one after another. Else 0, but a probe's lag when one is
// due and the Client's last attempt found the permits short (a Client
// alone is never held up while permits are there), and 0 when the Client
// made no attempt lately.
func (s *rateShares) entryLag(name string, now time.Time) time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	sh := s.m[name]
	switch {
	case sh == nil:
		return 0
	case sh.spread > sh.least:
		return rand.N(sh.spread)
	case sh.short:
		d, _ := s.probe(sh, now)
		return d
	}
	return 0
}

// probe is a probe's lag, if one is due at now (and ok), and takes it.
// Called with mu held.
func (s *rateShares) probe(sh *rateShare, now time.Time) (d time.Duration, ok bool) {
	if s.exact || sh.seen || sh.interval < minProbed || now.Sub(sh.probed) < sh.interval/probesPerInterval {
		return 0, false
	}
	sh.probed = now
	return max(probeLag(sh.interval), sh.spread), true
}

// probeLag is a probe's lag at a limiter of interval: between a twentieth
// and a tenth of it, and half maxSpread and maxSpread at most. The permits
// that come back meanwhile wait for this Client's acquisitions (they take
// them one after another once it is over) unless others take them: a
// Client alone delays a fifth of its permits at most (two probes an
// interval), by half a probe on average, under a hundredth of the
// interval: its rate is that much less at most.
func probeLag(interval time.Duration) time.Duration {
	lo, hi := min(interval/20, maxSpread/2), min(interval/10, maxSpread)
	return lo + rand.N(hi-lo+1)
}

// attempted records an attempt of this Client for n permits of the
// limiter name, stamped at now, and its outcome a: a grant is the
// Client's own; the script counts the foreign permits within the
// interval, those of clients other than relock's.
func (s *rateShares) attempted(name string, now time.Time, n int, a scripts.RateAttempt) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sh := s.m[name]
	if sh == nil {
		sh = &rateShare{spread: leastSpread(a.Interval), probed: now}
		s.m[name] = sh
	}
	sh.least, sh.interval, sh.short = leastSpread(a.Interval), a.Interval, !a.OK || a.Left == 0
	if a.OK {
		sh.own = append(sh.own, rateGrant{at: now, n: int64(n)})
	}
	from, own := now.Add(-a.Interval), int64(0)
	kept := sh.own[:0]
	for _, g := range sh.own {
		if g.at.After(from) {
			kept = append(kept, g)
			own += g.n
		}
	}
	sh.own = kept
	if a.Foreign >= 0 {
		sh.seen = a.Foreign > 0
	}
	switch others := a.Foreign; {
	case others < 0:
		// Not counted.
	case others == 0:
		sh.spread = max(sh.spread*4/5, sh.least)
	default:
		// In proportion to how far the Client's part is from the others':
		// the spread settles where they take as much as it, without
		// swinging from one bound to the other.
		f := min(max(math.Pow(float64(own)/float64(others), 0.25), 0.8), 1.25)
		sh.spread = min(max(time.Duration(float64(sh.spread)*f), sh.least), maxSpread, max(a.Interval/4, sh.least))
	}
	if len(sh.own) == 0 && sh.spread == sh.least {
		delete(s.m, name) // nothing to remember
	}
}

// leastSpread is the spread of a limiter of interval while no client but
// relock's takes its permits: minSpread, or a hundredth of a short
// interval (a millisecond at least), so that it costs a Client alone a
// two-hundredth of its rate at most.
func leastSpread(interval time.Duration) time.Duration {
	return min(minSpread, max(interval/100, time.Millisecond))
}
