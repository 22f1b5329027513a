package store

import "time"

// The rate limiter workload's rate, on both sides: at most RateLimit
// permits in any window of RateInterval, shared by every process
// (Redisson's RateType.OVERALL).
const (
	RateLimit    = 4
	RateInterval = 500 * time.Millisecond
)
