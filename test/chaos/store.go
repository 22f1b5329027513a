package chaos

import (
	"sync"
)

// Store stands for the resource a fenced lock guards: it accepts a write
// only if its fencing token is at least the highest it has accepted, so a
// holder whose lock passed to a newer owner can no longer change it. It is
// safe for concurrent use.
type Store struct {
	mu       sync.Mutex
	highest  int64
	accepted int
	rejected int
}

// Write offers a write with token and reports whether it was accepted.
func (s *Store) Write(token int64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if token < s.highest {
		s.rejected++
		return false
	}
	s.highest = token
	s.accepted++
	return true
}

// Counts returns how many writes were accepted and rejected.
func (s *Store) Counts() (accepted, rejected int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.accepted, s.rejected
}
