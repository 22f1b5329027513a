package check

import "testing"

// A Redisson hold taken just after its process resumed from a pause in
// which it held the same lock may have lost its watchdog to the renewal
// batch sent as the JVM resumed (renewedAcrossPause); nothing else about
// that hold excuses it.
func TestRenewalAcrossAPause(t *testing.T) {
	const lostInThePause = `
			java-1 acquire 0 1 ok
			nemesis pause 100 2500 target=java-1
			java-1 release 2510 2520 fail`
	// go-1 gets in a lease after the hold before it began, which then ends.
	const overlapped = `
			go-1 acquire 3000 4600 ok
			go-1 release 4700 4701 ok`
	runCases(t, []checkCase{
		{"the first Redisson hold after the pause", fenced, lostInThePause + `
			java-1 acquire 2530 2540 ok` + overlapped + `
			java-1 release 6000 6001 ok`,
			[]string{"measured exclusion"}},
		{"a Redisson hold taken past a command's resends after the pause", fenced, lostInThePause + `
			java-1 acquire 6000 6010 ok
			go-1 acquire 6500 8100 ok
			go-1 release 8200 8201 ok
			java-1 release 9000 9001 ok`,
			[]string{"VIOLATION exclusion"}},
		{"a Redisson hold after a pause in which the process held nothing", fenced, `
			nemesis pause 100 2500 target=java-1
			java-1 acquire 2530 2540 ok` + overlapped + `
			java-1 release 6000 6001 ok`,
			[]string{"VIOLATION exclusion"}},
		{"a second Redisson hold after the pause", fenced, lostInThePause + `
			java-1 acquire 2530 2540 ok
			java-1 release 2550 2560 ok
			java-1 acquire 2570 2580 ok` + overlapped + `
			java-1 release 6000 6001 ok`,
			[]string{"VIOLATION exclusion"}},
		{"a relock hold after the pause", fenced, `
			go-2 acquire 0 1 ok
			nemesis pause 100 2500 target=go-2
			go-2 release 2510 2520 fail
			go-2 acquire 2530 2540 ok` + overlapped + `
			go-2 release 6000 6001 ok`,
			[]string{"VIOLATION exclusion"}},
	})
}
