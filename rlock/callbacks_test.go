package rlock

import (
	"errors"
	"slices"
	"testing"
)

// Removing one callback leaves the others, in order; take empties the set,
// and removing after it does nothing.
func TestCallbacksRemoveOneAndTakeTheRestInOrder(t *testing.T) {
	var cs callbacks
	var called []int
	ids := make([]uint64, 4)
	for i := range ids {
		ids[i] = cs.add(func(error) { called = append(called, i) })
	}
	cs.remove(ids[1])
	cs.remove(ids[1]) // twice: nothing more goes
	fs := cs.take()
	cs.remove(ids[3])
	for _, c := range fs {
		c.f(errors.New("ended"))
	}
	if want := []int{0, 2, 3}; !slices.Equal(called, want) {
		t.Fatalf("called %v, want %v", called, want)
	}
	if len(cs.take()) != 0 {
		t.Fatal("take left callbacks behind")
	}
}
