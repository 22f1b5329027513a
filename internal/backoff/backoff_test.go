package backoff

import (
	"testing"
	"time"
)

func TestExponentialGrowsWithinBounds(t *testing.T) {
	const min, max = 10 * time.Millisecond, 80 * time.Millisecond
	for attempt, ceil := range []time.Duration{10, 20, 40, 80, 80, 80} {
		ceil *= time.Millisecond
		for range 200 {
			d := Exponential(min, max, attempt)
			if d < ceil/2 || d > ceil {
				t.Fatalf("attempt %d: %v outside [%v, %v]", attempt, d, ceil/2, ceil)
			}
		}
	}
}

func TestExponentialZero(t *testing.T) {
	if d := Exponential(0, 0, 5); d != 0 {
		t.Fatalf("got %v, want 0", d)
	}
}
