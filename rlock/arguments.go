package rlock

import (
	"fmt"
	"time"
)

// The rule for durations, the same on every kind (docs/semantics.md,
// "Durations"): a negative wait or lease is an error; a wait of 0 is one
// attempt and a positive one its bound; a lease below a millisecond, the
// resolution of Redis expiries, is an error, except a lease of 0 where the
// method gives it a meaning (TryLock: the watchdog's; a permit: no expiry).

// Inside the package an acquisition waits until a deadline, whatever the
// method took (a wait, none): the zero deadline, noDeadline, never comes
// (Lock, Acquire, Await wait until ctx ends), and one that has passed
// when the acquisition begins allows a single attempt (a wait of 0).

// noDeadline is the deadline of the acquisitions that wait until ctx
// ends.
var noDeadline time.Time

// deadlineAfter is the deadline of an acquisition that may wait wait from
// now (TryLock's): one that has passed, a single attempt, for a wait of 0.
func deadlineAfter(wait time.Duration) time.Time { return time.Now().Add(wait) }

// passed reports whether deadline (none when zero) has passed.
func passed(deadline time.Time) bool { return !deadline.IsZero() && !time.Now().Before(deadline) }

// checkWait refuses a negative wait.
func checkWait(wait time.Duration) error { return checkNotNegative("wait", wait) }

// checkTry checks TryLock's durations: a wait that checkWait accepts, and a
// lease of 0 (the watchdog's) or one that checkDuration accepts.
func checkTry(wait, lease time.Duration) error {
	if err := checkWait(wait); err != nil {
		return err
	}
	return checkOptionalLease(lease)
}

// checkLease checks a fixed lease (LockWithLease, Extend): one that
// checkDuration accepts. A lease of 0 is refused with a pointer to the
// watchdog, which keeps the locks taken without a lease.
func checkLease(lease time.Duration) error {
	if lease == 0 {
		return invalidDuration("lease", lease, "is no fixed lease: take the lock without one (Lock, or TryLock with lease 0) for the watchdog to keep it")
	}
	return checkDuration("lease", lease)
}

// checkOptionalLease checks a lease that may be 0, which means what the
// method says (the watchdog's, or a permit that never expires): else one
// that checkDuration accepts.
func checkOptionalLease(lease time.Duration) error {
	if lease == 0 {
		return nil
	}
	return checkDuration("lease", lease)
}

// checkDuration refuses a duration called what that Redis cannot hold as an
// expiry: a negative one, or one below a millisecond. Longer ones are
// rounded up to whole milliseconds.
func checkDuration(what string, d time.Duration) error {
	if err := checkNotNegative(what, d); err != nil {
		return err
	}
	if d < time.Millisecond {
		return invalidDuration(what, d, "is below 1ms, the resolution of Redis expiries")
	}
	return nil
}

// checkNotNegative refuses a negative duration called what.
func checkNotNegative(what string, d time.Duration) error {
	if d < 0 {
		return invalidDuration(what, d, "is negative")
	}
	return nil
}

// invalidDuration is the cause of a bad duration called what: "wait -1s is
// negative".
func invalidDuration(what string, d time.Duration, rule string) error {
	return fmt.Errorf("%w: %s %v %s", ErrInvalidDuration, what, d, rule)
}
