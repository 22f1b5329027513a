package check

import (
	"fmt"
	"slices"
	"time"

	"github.com/relock-go/relock/test/proof/history"
)

// leftovers judges what the lock services held after the run
// (history.Run.Leftovers): a key of a family meant to stay
// (history.KeptFamilies) or with a TTL (it expires on its own) is fine;
// a fair queue's keys are measured (CauseQueuedDeadlines); any other key
// (a lock still held, a key of no family) is a violation. A run that did
// not list them is unchecked.
func leftovers(run *history.Run) []Finding {
	at := func(f Finding) Finding {
		f.Check, f.At, f.Since = CheckLeftovers, run.End, time.Duration(run.End-run.Start)
		return f
	}
	if !run.HasLeftovers {
		return []Finding{at(Finding{Severity: Unchecked, Text: "the run did not list what its lock services held after it (" + history.LeftoversFile + ")"})}
	}
	var out []Finding
	for _, l := range run.Leftovers {
		if l.TTLMS >= 0 || slices.Contains(history.KeptFamilies, l.Family) {
			continue
		}
		family := l.Family
		if family == "" {
			family = "no family"
		}
		f := Finding{Severity: Violation, Name: l.Key,
			Text: fmt.Sprintf("%s held %s (%s, a %s) without a TTL after the run", l.Service, l.Key, family, l.Type)}
		if slices.Contains(queueFamilies, l.Family) {
			f.Severity, f.Cause = Measured, CauseQueuedDeadlines
		}
		out = append(out, at(f))
	}
	return out
}

// queueFamilies are the keys of a fair queue: they stay while a waiter in
// it has a deadline ahead.
var queueFamilies = []string{"fair queue", "fair deadlines", "fair relock waiters"}

// CauseQueuedDeadlines explains a fair queue left after the run: Redisson
// chains its waiters' deadlines (each a wait timeout after the one before
// it), so the last of a queue of dead waiters may have a deadline seconds
// past the run's end; the run does not record the deadlines to judge it.
const CauseQueuedDeadlines = "its waiters' deadlines may lie ahead"
