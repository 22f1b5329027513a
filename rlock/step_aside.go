package rlock

import (
	"sync"
	"time"
)

// stepAsides are the step-asides of a Client, by lock or object name: an
// acquisition of this Client that starts within the step-aside after a
// release it published and someone heard, with no waiter of its own to
// queue behind, lets the woken waiters go first (until): minStepAside, or
// the Hub's adaptive step while other clients listen
// (pubsub.Hub.StepAside). Every kind's release records its step-aside
// (heard); the turns that take their turns with other Clients read it.
// docs/architecture.md ("Hand-offs") tells why.
type stepAsides struct {
	mu sync.Mutex
	// till is until when this Client's new acquisitions of a name let the
	// waiters woken by its last published release go first; entries past
	// are dropped as others are added.
	till map[string]time.Time
}

// minStepAside is how long after a release this Client published, and
// someone heard, its new acquisitions of that lock let the woken waiters
// go first when no other connection is known to listen: more than a
// wake-up and a retry take in this Client, far less than a lease.
const minStepAside = time.Millisecond

// heard records that this Client just published a release of the lock
// or object called name, and someone heard it; others is how long to step
// aside for the waiters of other clients (pubsub.Hub.StepAside: 0 when
// none listens).
func (s *stepAsides) heard(name string, others time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	if s.till == nil {
		s.till = make(map[string]time.Time)
	}
	if len(s.till) >= 64 {
		for n, till := range s.till {
			if now.After(till) {
				delete(s.till, n)
			}
		}
	}
	s.till[name] = now.Add(max(others, minStepAside))
}

// until is until when a new acquisition of name lets the waiters woken by
// this Client's last release of it go first: zero when that step-aside is
// over.
func (s *stepAsides) until(name string) time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	till, ok := s.till[name]
	if !ok {
		return time.Time{}
	}
	if !time.Now().Before(till) {
		delete(s.till, name)
		return time.Time{}
	}
	return till
}
