package harness

import (
	"testing"
	"time"
)

// A hand-off timed from the releaser's Unlock returning is recorded once
// both ends are known, whichever comes first: negative when the next
// holder had the lock before the releaser heard its Unlock's reply.
func TestRecorderTimesHandOffsFromUnlocksReturn(t *testing.T) {
	now := time.Now()
	r := newRecorder(2, 1, now.Add(-time.Hour), now.Add(time.Hour))
	since := r.acquired(0, 0)
	r.releasing(0, since)
	r.released(0)
	next := r.acquired(1, 0) // after the return
	r.releasing(1, next)
	r.acquired(0, 0) // before goroutine 1's return
	r.released(1)
	if len(r.returnGaps) != 2 {
		t.Fatalf("recorded %d hand-offs, want 2", len(r.returnGaps))
	}
	if r.returnGaps[0] < 0 || r.returnGaps[1] >= 0 {
		t.Fatalf("gaps %v: want the first after the return, the second before it", r.returnGaps)
	}
	if len(r.open) != 0 {
		t.Fatalf("%d hand-offs left half known", len(r.open))
	}
}
