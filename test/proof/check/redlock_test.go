package check

import (
	"testing"

	"github.com/relock-go/relock/test/proof/history"
)

var redLock = history.NameSpec{Workload: history.RedLock, LeaseMS: 1000, WaitMS: 2000, Redis: "redlock"}

// A Redlock is judged by exclusion, its causes as any lock's: a holder
// paused past its lease explains an overlap; a restart of another lock
// service does not.
func TestCheckRedLockExclusion(t *testing.T) {
	runCases(t, []checkCase{
		{"redlock: a holder paused past its lease", redLock, `
			go-1 acquire 0 1 ok
			nemesis pause 2 1500 target=go-1
			java-1 acquire 3 1200 ok
			java-1 release 1300 1301 ok
			go-1 release 1501 1502 fail`,
			[]string{"measured exclusion"}},
		{"redlock: two holders, the other service restarted", redLock, `
			go-1 acquire 0 1 ok
			nemesis restart-nopersist 2 3 target=elsewhere
			go-2 acquire 4 5 ok
			go-2 release 6 7 ok
			go-1 release 8 9 ok`,
			[]string{"VIOLATION exclusion"}},
	})
}
