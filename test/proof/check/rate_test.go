package check

import (
	"testing"

	"github.com/relock-go/relock/test/proof/history"
)

var rate = history.NameSpec{Workload: history.Rate, Permits: 2, IntervalMS: 1000, LeaseMS: 2000, WaitMS: 1000}

// A rate limiter of 2 permits a second: grants that certainly fell in one
// window over the limit are over-grants.
func TestCheckRate(t *testing.T) {
	runCases(t, []checkCase{
		{"rate: two a second, the third a window later, one that may have come late", rate, `
			go-1 acquire 0 1 ok value=1
			java-1 acquire 2 3 ok value=1
			go-2 acquire 4 5 fail value=1
			java-1 acquire 500 1500 ok value=1
			go-1 acquire 990 991 ok value=1
			go-2 acquire 2000 2001 ok value=2`,
			nil},
		{"rate: three in half a second", rate, `
			go-1 acquire 0 1 ok value=1
			java-1 acquire 2 3 ok value=1
			go-2 acquire 500 501 ok value=1`,
			[]string{"VIOLATION rate"}},
		{"rate: two permits, then one more", rate, `
			java-1 acquire 0 1 ok value=2
			go-2 acquire 100 101 ok value=1`,
			[]string{"VIOLATION rate"}},
		{"rate: a restart without persistence forgets the permits taken", onSingle(rate), `
			go-1 acquire 0 1 ok value=1
			java-1 acquire 2 3 ok value=1
			nemesis restart-nopersist 100 200 target=single
			go-2 acquire 300 301 ok value=1`,
			[]string{"measured rate"}},
	})
}
