// Package backoff computes jittered exponential delays for retry loops.
package backoff

import (
	"math/rand/v2"
	"time"
)

// Exponential returns the delay before retry number attempt (0-based): a
// random duration in [d/2, d], where d is min doubled attempt times, capped
// at max. The jitter keeps retrying clients from moving in lock step.
func Exponential(min, max time.Duration, attempt int) time.Duration {
	d := min
	for i := 0; i < attempt && d < max; i++ {
		d *= 2
	}
	if d > max {
		d = max
	}
	if d <= 1 {
		return d
	}
	half := d / 2
	return half + rand.N(d-half+1)
}
