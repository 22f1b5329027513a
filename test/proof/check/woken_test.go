package check

import (
	"testing"

	"github.com/relock-go/relock/test/proof/history"
)

// The woken check, on histories where a relock waiter of a released lock
// is, or is not, woken by the release (a 2 s lease as the proof's,
// Config.Wake 500 ms). A waiter that slept out the lock's TTL after a
// release that returned ok, the lock granted to nobody meanwhile, must
// fail the run; a waiter woken in time, one that the lock went to
// someone else before, one that gave up before its bound, one a fault hit
// and one of a release that failed must not.
func TestWokenByTheRelease(t *testing.T) {
	plain := history.NameSpec{Workload: history.Plain, LeaseMS: 2000, WaitMS: 5000}
	fenced := history.NameSpec{Workload: history.Fenced, LeaseMS: 2000, WaitMS: 5000}
	runCases(t, []checkCase{
		{"a relock waiter that slept out the TTL after a relock release", plain, `
			go-1 acquire 0 1 ok
			go-2 acquire 10 2010 ok
			go-1 release 20 21 ok
			go-2 release 2020 2021 ok`, []string{"VIOLATION woken"}},
		{"a relock waiter that slept out the TTL after a Redisson release", fenced, `
			java-1 acquire 0 1 ok token=1
			go-2 acquire 10 2010 ok token=2
			java-1 release 20 21 ok
			go-2 release 2020 2021 ok`, []string{"VIOLATION woken"}},
		{"two relock waiters asleep, one granted at its TTL", plain, `
			go-1 acquire 0 1 ok
			go-2 acquire 10 2010 ok
			go-3 acquire 12 3000 ok
			go-1 release 20 21 ok
			go-2 release 2020 2021 ok
			go-3 release 3010 3011 ok`, []string{"VIOLATION woken"}},
		{"a relock waiter woken at once", plain, `
			go-1 acquire 0 1 ok
			go-2 acquire 10 40 ok
			go-1 release 20 21 ok
			go-2 release 50 51 ok`, nil},
		{"the releaser took the lock again before the waiter", plain, `
			go-1 acquire 0 1 ok
			go-2 acquire 10 2010 ok
			go-1 release 20 21 ok
			go-1 acquire 25 26 ok
			go-1 release 1900 1901 ok
			go-2 release 2020 2021 ok`, nil},
		{"the waiter gave up before its bound", plain, `
			go-1 acquire 0 1 ok
			go-2 acquire 10 300 fail
			go-1 release 20 21 ok
			end=2100`, nil},
		{"a reset of the waiter's connections a lease before", plain, `
			nemesis reset 5 6 target=go-2
			go-1 acquire 0 1 ok
			go-2 acquire 10 2010 ok
			go-1 release 20 21 ok
			go-2 release 2020 2021 ok`, nil},
		{"a release that failed: the lock had lapsed, nothing was published", plain, `
			go-1 acquire 0 1 ok
			go-2 acquire 10 2010 ok
			go-1 lost 1900 1900 ok
			go-1 release 1950 1951 fail
			go-2 release 2020 2021 ok`, nil},
	})
}
