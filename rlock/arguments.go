package rlock

import "time"

// checkTry checks TryLock's durations: a wait that is not negative, and a
// lease of 0 (the watchdog's) or one that checkLease accepts.
func checkTry(wait, lease time.Duration) error {
	if wait < 0 {
		return invalidDuration("wait", wait, "is negative")
	}
	if lease != 0 {
		return checkLease("lease", lease)
	}
	return nil
}

// checkLease rejects a duration that Redis cannot hold as an expiry: one
// below a millisecond. Longer ones are rounded up to whole milliseconds.
func checkLease(what string, d time.Duration) error {
	if d < time.Millisecond {
		return invalidDuration(what, d, "is below 1ms, the resolution of Redis expiries")
	}
	return nil
}
