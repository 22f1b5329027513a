package eventlog

import (
	"slices"
	"testing"
)

// Await returns an event added after it began waiting, and Matching keeps
// the order of Add.
func TestAwaitSeesLaterEvents(t *testing.T) {
	l := New[int]()
	l.Add(1)
	go func() {
		for i := 2; i <= 5; i++ {
			l.Add(i)
		}
	}()
	if got := l.Await(t, "a number above 4", func(n int) bool { return n > 4 }); got != 5 {
		t.Fatalf("Await returned %d, want 5", got)
	}
	if got := l.Matching(func(n int) bool { return n%2 == 1 }); !slices.Equal(got, []int{1, 3, 5}) {
		t.Fatalf("odd events %v, want [1 3 5]", got)
	}
	// A match may look at the Log itself.
	if got := l.Await(t, "the fifth", func(int) bool { return len(l.Matching(func(int) bool { return true })) == 5 }); got != 1 {
		t.Fatalf("Await returned %d, want the first event", got)
	}
}
