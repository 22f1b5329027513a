package queue

import (
	"testing"
	"time"
)

// A release grants the lock to a relock head that still listens however
// long it waited: its deadline does not evict it.
func TestReleaseGrantsALiveRelockHeadPastItsDeadline(t *testing.T) {
	f := newFixture(t)
	f.hold("holder")
	f.queue("a", 0)
	f.queue("b", 1)
	f.setNow(f.now.Add(lease + wait + time.Second))
	f.release("holder")
	if h := f.holders(); len(h) != 1 || h["a"] != "1" {
		t.Fatalf("lock after the release: %v, want a, the live head, holding", h)
	}
	f.assertLine("b")
}
