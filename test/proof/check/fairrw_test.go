package check

import (
	"testing"

	"github.com/relock-go/relock/test/proof/history"
)

var fairRW = history.NameSpec{Workload: history.FairRW, LeaseMS: 1000, WaitMS: 2000}

// The fair read-write lock is judged as the read-write lock is: readers
// together, a writer beside nobody.
func TestCheckFairRWExclusion(t *testing.T) {
	runCases(t, []checkCase{
		{"fairrw: readers together, then a writer alone", fairRW, `
			go-1 acquire 0 1 ok mode=read
			go-2 acquire 0.5 2 ok mode=read
			go-3 acquire 1.5 12 ok mode=write
			go-1 release 5 6 ok mode=read
			go-2 release 10 11 ok mode=read
			go-3 release 13 14 ok mode=write`,
			nil},
		{"fairrw: a writer let in beside a reader", fairRW, `
			go-1 acquire 0 1 ok mode=read
			go-3 acquire 1.5 3 ok mode=write
			go-1 release 5 6 ok mode=read
			go-3 release 13 14 ok mode=write`,
			[]string{"VIOLATION exclusion"}},
		{"fairrw: two writers together", fairRW, `
			go-1 acquire 0 1 ok mode=write
			go-2 acquire 0.5 2 ok mode=write
			go-1 release 5 6 ok mode=write
			go-2 release 10 11 ok mode=write`,
			[]string{"VIOLATION exclusion"}},
	})
}
