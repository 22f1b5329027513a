//go:build !linux

package harness

import "time"

// sleepIO sleeps for d (see the Linux version: here Go's sleep, whose
// wake-up the process's other I/O may delay).
func sleepIO(d time.Duration) { time.Sleep(d) }
