package chaos

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/relock-go/relock/rlock"
	"github.com/relock-go/relock/test/testkit"
)

// History records the critical sections of a run. It is safe for
// concurrent use.
type History struct {
	clock atomic.Int64 // the stamps: one total order of events

	mu       sync.Mutex
	sections []Section
}

// UnlockOutcome is how a section's Unlock ended.
type UnlockOutcome int

const (
	// Released: Unlock returned nil.
	Released UnlockOutcome = iota
	// NotHeld: Unlock reported rlock.ErrNotHeld.
	NotHeld
	// UnlockFailed: Unlock kept failing with another error.
	UnlockFailed
)

// Section is one critical section as its holder saw it. Stamps come from
// the History's counter; 0 means none.
type Section struct {
	Name  string // lock name
	Owner string // owner id
	Token int64  // fencing token granted with the lock

	Start int64 // taken when Lock returned
	Valid int64 // last stamp followed by a check that found Lost open; 0 if none
	End   int64 // taken when the holder stopped, before Unlock

	Lost               bool          // Lost had closed when the holder stopped
	Steps              int           // steps run while Lost was open
	Rejected           int           // of their writes, those the Store rejected
	RejectedWhileHeld  int           // rejected writes after which Lost was still open
	Unlock             UnlockOutcome // how Unlock ended
	NotHeldWithoutLost bool          // Unlock reported ErrNotHeld with Lost open
}

// Hold is a critical section in progress: its holder calls Step before each
// unit of guarded work and Finish with Unlock's result. A Hold is used by
// one goroutine.
type Hold struct {
	h     *History
	s     Section
	lost  <-chan struct{}
	store *Store
}

// Begin starts recording a section of lock name held by owner with token;
// lost is the hold's Lost channel, store the resource the lock guards.
func (h *History) Begin(name, owner string, token int64, lost <-chan struct{}, store *Store) *Hold {
	x := &Hold{h: h, lost: lost, store: store, s: Section{Name: name, Owner: owner, Token: token}}
	x.s.Start = h.clock.Add(1)
	if testkit.Closed(lost) {
		x.s.Lost = true
	} else {
		x.s.Valid = x.s.Start
	}
	return x
}

// Step stamps the moment, checks the hold, and if it still stands writes
// the section's token to the store. It returns false when the hold is lost
// (now or before): the holder must stop working.
func (x *Hold) Step() bool {
	if x.s.Lost {
		return false
	}
	stamp := x.h.clock.Add(1)
	if testkit.Closed(x.lost) {
		x.s.Lost = true
		return false
	}
	x.s.Valid = stamp
	x.s.Steps++
	if !x.store.Write(x.s.Token) {
		x.s.Rejected++
		if !testkit.Closed(x.lost) {
			x.s.RejectedWhileHeld++
		}
	}
	return true
}

// Stop ends the section's work, before its Unlock.
func (x *Hold) Stop() {
	x.s.End = x.h.clock.Add(1)
	if testkit.Closed(x.lost) {
		x.s.Lost = true
	}
}

// Finish records Unlock's result and files the section. A nil error is a
// release; anything other than rlock.ErrNotHeld is a failed Unlock.
func (x *Hold) Finish(unlockErr error) {
	switch {
	case unlockErr == nil:
		x.s.Unlock = Released
	case errors.Is(unlockErr, rlock.ErrNotHeld):
		x.s.Unlock = NotHeld
		x.s.NotHeldWithoutLost = !testkit.Closed(x.lost)
	default:
		x.s.Unlock = UnlockFailed
	}
	x.h.mu.Lock()
	x.h.sections = append(x.h.sections, x.s)
	x.h.mu.Unlock()
}

// Sections returns a copy of the filed sections.
func (h *History) Sections() []Section {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.sections)
}

// Report is the outcome of Check.
type Report struct {
	Sections    int // filed sections
	Lost        int // sections whose Lost fired before the holder stopped
	LostAtStart int // of those, sections whose Lost had fired when Lock returned
	Steps       int // guarded steps run, each one write to the Store
	Rejected    int // writes the Store rejected (stale holders, expected)
	NotHeld     int // Unlocks that reported ErrNotHeld
	UnlockFail  int // Unlocks that never got an answer

	// Violations of the promise (see the package doc); each must be 0.
	Overlaps           int // pairs of valid intervals that overlap
	TokenRegressions   int // valid sections whose token is not above the previous one's
	DuplicateTokens    int // tokens granted to two sections
	RejectedWhileHeld  int // rejected writes with Lost still open
	NotHeldWithoutLost int // ErrNotHeld from Unlock with Lost still open

	// Examples describes the first few violations.
	Examples []string
}

// Violations is the number of broken promises.
func (r Report) Violations() int {
	return r.Overlaps + r.TokenRegressions + r.DuplicateTokens + r.RejectedWhileHeld + r.NotHeldWithoutLost
}

// String summarises the report in one line: counts, then violations by kind.
func (r Report) String() string {
	return fmt.Sprintf("sections %d (lost %d, lost at start %d), steps %d, rejected writes %d, unlock not-held %d, unlock failed %d; "+
		"violations %d (overlaps %d, token regressions %d, duplicate tokens %d, rejected while held %d, not-held without Lost %d)",
		r.Sections, r.Lost, r.LostAtStart, r.Steps, r.Rejected, r.NotHeld, r.UnlockFail,
		r.Violations(), r.Overlaps, r.TokenRegressions, r.DuplicateTokens, r.RejectedWhileHeld, r.NotHeldWithoutLost)
}

// maxExamples bounds Report.Examples.
const maxExamples = 5

// Check proves the promises of the package doc over the filed sections.
func (h *History) Check() Report {
	var r Report
	example := func(format string, args ...any) {
		if len(r.Examples) < maxExamples {
			r.Examples = append(r.Examples, fmt.Sprintf(format, args...))
		}
	}
	byName := make(map[string][]Section)
	for _, s := range h.Sections() {
		r.Sections++
		r.Steps += s.Steps
		r.Rejected += s.Rejected
		if s.Lost {
			r.Lost++
			if s.Valid == 0 {
				r.LostAtStart++
			}
		}
		switch s.Unlock {
		case NotHeld:
			r.NotHeld++
		case UnlockFailed:
			r.UnlockFail++
		}
		if s.RejectedWhileHeld > 0 {
			r.RejectedWhileHeld += s.RejectedWhileHeld
			example("%s: %s (token %d) had a write rejected while its Lost was open", s.Name, s.Owner, s.Token)
		}
		if s.NotHeldWithoutLost {
			r.NotHeldWithoutLost++
			example("%s: %s (token %d): Unlock reported ErrNotHeld with Lost open", s.Name, s.Owner, s.Token)
		}
		byName[s.Name] = append(byName[s.Name], s)
	}
	for _, secs := range byName {
		seen := make(map[int64]Section, len(secs))
		for _, s := range secs {
			if o, dup := seen[s.Token]; dup {
				r.DuplicateTokens++
				example("%s: token %d granted to %s and %s", s.Name, s.Token, o.Owner, s.Owner)
			}
			seen[s.Token] = s
		}
		valid := slices.DeleteFunc(secs, func(s Section) bool { return s.Valid == 0 })
		slices.SortFunc(valid, func(a, b Section) int { return cmp.Compare(a.Start, b.Start) })
		var prev *Section // the valid section with the latest Valid stamp so far
		for i := range valid {
			s := &valid[i]
			if prev != nil {
				if s.Start <= prev.Valid {
					r.Overlaps++
					example("%s: %s (token %d, stamps %d..%d) overlaps %s (token %d, stamps %d..%d)",
						s.Name, s.Owner, s.Token, s.Start, s.Valid, prev.Owner, prev.Token, prev.Start, prev.Valid)
				}
				if s.Token <= valid[i-1].Token {
					r.TokenRegressions++
					example("%s: token %d of %s follows token %d of %s", s.Name, s.Token, s.Owner, valid[i-1].Token, valid[i-1].Owner)
				}
			}
			if prev == nil || s.Valid > prev.Valid {
				prev = s
			}
		}
	}
	return r
}

// Summary is the report on one line per finding, for logs.
func (r Report) Summary() string {
	var b strings.Builder
	b.WriteString(r.String())
	for _, e := range r.Examples {
		b.WriteString("\n  ")
		b.WriteString(e)
	}
	return b.String()
}
