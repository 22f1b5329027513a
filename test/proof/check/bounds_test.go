package check

import "testing"

// Every excuse is bounded: a Redisson release that may have been resent
// explains one permit too many, from the moment a resend could apply, in
// its own semaphore; a process killed before then resent nothing.
func TestExcusesAreBounded(t *testing.T) {
	runCases(t, []checkCase{
		// Wrong.
		{"one slow Redisson release does not explain 4 holders inside a semaphore of 2", sem2, `
			java-1 acquire 0 1 ok
			java-1 release 2 1500 ok
			go-1 acquire 1600 1601 ok
			go-2 acquire 1602 1603 ok
			go-3 acquire 1604 1605 ok
			go-4 acquire 1606 1607 ok
			go-1 release 1700 1701 ok
			go-2 release 1702 1703 ok
			go-3 release 1704 1705 ok
			go-4 release 1706 1707 ok`,
			[]string{"measured permits", "VIOLATION permits"}},
		{"a Redisson release whose process was killed before it could resend explains nothing 60 s later", sem2, `
			java-1 acquire 0 1 ok
			java-1 release 2 - none
			nemesis kill 100 100 target=java-1
			go-1 acquire 60000 60001 ok
			go-2 acquire 60002 60003 ok
			go-3 acquire 60004 60005 ok
			go-1 release 60100 60101 ok
			go-2 release 60102 60103 ok
			go-3 release 60104 60105 ok`,
			[]string{"VIOLATION permits"}},
		{"a slow Redisson release explains no overrun before it could have been resent", sem2, `
			java-1 acquire 0 1 ok
			java-1 release 2 1500 ok
			go-1 acquire 200 201 ok
			go-2 acquire 202 203 ok
			go-3 acquire 204 205 ok
			go-1 release 300 301 ok
			go-2 release 302 303 ok
			go-3 release 304 305 ok`,
			[]string{"VIOLATION permits"}},
		{"on Sentinel, a Redisson release within its timeout and the wait for a replica was sent once", withAck(sem2), `
			java-1 acquire 0 1 ok
			java-1 release 2 1500 ok
			go-1 acquire 1600 1601 ok
			go-2 acquire 1602 1603 ok
			go-3 acquire 1604 1605 ok
			go-1 release 1700 1701 ok
			go-2 release 1702 1703 ok
			go-3 release 1704 1705 ok`,
			[]string{"VIOLATION permits"}},

		// Right.
		{"one slow Redisson release explains 3 holders inside a semaphore of 2", sem2, `
			java-1 acquire 0 1 ok
			java-1 release 2 1500 ok
			go-1 acquire 1600 1601 ok
			go-2 acquire 1602 1603 ok
			go-3 acquire 1604 1605 ok
			go-1 release 1700 1701 ok
			go-2 release 1702 1703 ok
			go-3 release 1704 1705 ok`,
			[]string{"measured permits"}},
		{"a Redisson release that got no answer, its process alive, leaves a permit too many for good", sem2, `
			java-1 acquire 0 1 ok
			java-1 release 2 1500 info
			go-1 acquire 60000 60001 ok
			go-2 acquire 60002 60003 ok
			go-3 acquire 60004 60005 ok
			go-1 release 60100 60101 ok
			go-2 release 60102 60103 ok
			go-3 release 60104 60105 ok`,
			[]string{"measured permits"}},
		{"two slow Redisson releases explain 4 holders inside a semaphore of 2", sem2, `
			java-1 acquire 0 1 ok
			java-1 release 2 1500 ok
			java-2 acquire 3 4 ok
			java-2 release 5 1600 ok
			go-1 acquire 1700 1701 ok
			go-2 acquire 1702 1703 ok
			go-3 acquire 1704 1705 ok
			go-4 acquire 1706 1707 ok
			go-1 release 1800 1801 ok
			go-2 release 1802 1803 ok
			go-3 release 1804 1805 ok
			go-4 release 1806 1807 ok`,
			[]string{"measured permits"}},
	})
}
