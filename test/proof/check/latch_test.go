package check

import (
	"testing"

	"github.com/relock-go/relock/test/proof/history"
)

var latch = history.NameSpec{Workload: history.Latch, Permits: 2, LeaseMS: 1000, WaitMS: 3000}

// A latch round: the waiters are released once both count-downs are in,
// and not before.
func TestCheckLatch(t *testing.T) {
	runCases(t, []checkCase{
		{"latch: waiters released after the second count-down, or at once after it", latch, `
			go-1 write 0 1 ok token=0 value=2
			go-1 acquire 2 13 ok token=0
			go-2 release 3 4 ok token=0
			java-1 acquire 5 14 ok token=0
			java-2 release 10 12 ok token=0
			go-3 acquire 20 21 ok token=0
			go-1 write 30 31 ok token=1 value=2
			go-1 acquire 32 2032 fail token=1
			go-2 release 33 34 ok token=1`,
			nil},
		{"latch: a waiter released after one count-down of two", latch, `
			go-1 write 0 1 ok token=0 value=2
			go-2 release 3 4 ok token=0
			java-1 acquire 5 8 ok token=0
			java-2 release 10 12 ok token=0`,
			[]string{"VIOLATION latch"}},
		{"latch: a waiter that gives up after the count reached zero", latch, `
			go-1 write 0 1 ok token=0 value=2
			go-2 release 3 4 ok token=0
			java-2 release 10 12 ok token=0
			go-3 acquire 5 3005 fail token=0`,
			[]string{"VIOLATION latch"}},
		{"latch: a restart without persistence loses the count", onSingle(latch), `
			go-1 write 0 1 ok token=0 value=2
			go-2 release 3 4 ok token=0
			nemesis restart-nopersist 5 6 target=single
			java-1 acquire 7 8 ok token=0`,
			[]string{"measured latch"}},
		{"latch: a waiter cut off from Redis hears nothing", latch, `
			go-1 write 0 1 ok token=0 value=2
			go-2 release 3 4 ok token=0
			java-2 release 10 12 ok token=0
			nemesis partition 8 1500 target=go-3
			go-3 acquire 5 3005 fail token=0`,
			[]string{"measured latch"}},
	})
}
