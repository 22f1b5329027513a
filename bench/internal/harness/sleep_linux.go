package harness

import (
	"syscall"
	"time"
)

// sleepIO blocks the calling goroutine's thread in the kernel for d, as a
// critical section waiting on I/O would, to within the kernel's timer
// slack; it suits a few sleepers at once (a thread each). Go's own sleep
// wakes through the process's poller, which waits in whole milliseconds:
// whenever other I/O of the process wakes the poller during a sleep, the
// time left is rounded up to a millisecond. A 1 ms sleep then ended 0.3 ms
// late at the median where another Client of the same process made round
// trips during it, against 0.14 ms where none did: lateness that follows
// the process layout of the benchmark (its Clients share one process), not
// the lock.
func sleepIO(d time.Duration) {
	ts := syscall.NsecToTimespec(int64(d))
	for syscall.Nanosleep(&ts, &ts) == syscall.EINTR {
	}
}
