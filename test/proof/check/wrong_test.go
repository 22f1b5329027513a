package check

import "testing"

// Wrong histories, written by hand: the checker must fail each with the
// violations listed, and nothing else.
func TestCheckCatchesWrongHistories(t *testing.T) {
	runCases(t, []checkCase{
		{"fenced: a lost write", fenced, `
			go-1 acquire 0 1 ok token=1
			go-1 read 2 3 ok token=1 value=0
			go-1 write 4 5 ok token=1 value=1
			go-1 release 6 7 ok
			go-2 acquire 8 9 ok token=2
			go-2 read 10 11 ok token=2 value=0
			go-2 write 12 13 ok token=2 value=1
			go-2 release 14 15 ok`,
			[]string{"VIOLATION register", "VIOLATION lost-updates"}},
		{"fenced: a token granted twice, and below an earlier one", fenced, `
			go-1 acquire 0 1 ok token=2
			go-1 release 2 3 ok
			go-2 acquire 4 5 ok token=1
			go-2 release 6 7 ok
			go-3 acquire 8 9 ok token=1
			go-3 release 10 11 ok`,
			[]string{"VIOLATION grant-tokens"}},
		{"fenced: a failover with replica acknowledgement repeats a relock token", onAck(fenced), `
			go-1 acquire 0 1 ok token=2
			nemesis failover-ack 2 4 target=ack
			go-1 release 5 6 fail
			go-2 acquire 7 8 ok token=2
			go-2 release 9 10 ok`,
			[]string{"VIOLATION grant-tokens"}},
		{"fenced: the store accepted a write with a lower token", fenced, `
			go-1 acquire 0 1 ok token=1
			go-1 release 2 3 ok
			go-2 acquire 4 5 ok token=2
			go-2 read 6 7 ok token=2 value=0
			go-2 write 8 9 ok token=2 value=1
			go-2 release 10 11 ok
			go-1 write 12 13 ok token=1 value=1
			go-3 acquire 14 15 ok token=3
			go-3 read 16 17 ok token=3 value=1
			go-3 write 18 19 ok token=3 value=2
			go-3 release 20 21 ok`,
			[]string{"VIOLATION store-tokens", "VIOLATION register", "VIOLATION lost-updates"}},
		{"fenced: a read of a value never written", fenced, `
			go-1 acquire 0 1 ok token=1
			go-1 read 2 3 ok token=1 value=7
			go-1 release 4 5 ok`,
			[]string{"VIOLATION register", "VIOLATION lost-updates"}},
		{"semaphore: two inside one permit", sem1, `
			go-1 acquire 0 1 ok
			go-1 enter 2 3 ok count=1
			go-2 acquire 2.5 4 ok
			go-2 enter 5 6 ok count=2
			go-1 leave 7 8 ok
			go-1 release 9 10 ok
			go-2 leave 11 12 ok
			go-2 release 13 14 ok`,
			[]string{"VIOLATION permits"}},
		{"semaphore: a relock release is never applied twice, however long it took", sem1, `
			go-3 acquire 0 1 ok
			go-3 release 2 1500 ok
			go-1 acquire 1600 1601 ok
			go-1 enter 1602 1603 ok count=1
			go-2 acquire 1604 1605 ok
			go-2 enter 1606 1607 ok count=2
			go-1 leave 1608 1609 ok
			go-1 release 1610 1611 ok
			go-2 leave 1612 1613 ok
			go-2 release 1614 1615 ok`,
			[]string{"VIOLATION permits"}},
		{"semaphore: a count above N alone", sem2, `
			go-1 acquire 0 1 ok
			go-1 enter 2 3 ok count=3
			go-1 release 9 10 ok`,
			[]string{"VIOLATION permits"}},
		{"election: two leaders for one token", election, `
			go-1 acquire 0 1 ok token=1
			go-1 release 2 3 ok
			go-2 acquire 4 5 ok token=1
			go-2 release 6 7 ok`,
			[]string{"VIOLATION grant-tokens"}},
		{"election: a deposed leader's write accepted", election, `
			go-1 acquire 0 1 ok token=1
			go-1 read 2 3 ok token=1 value=0
			go-1 lost 4 4 ok
			go-2 acquire 5 6 ok token=2
			go-2 read 7 8 ok token=2 value=0
			go-2 write 9 10 ok token=2 value=1
			go-2 release 11 12 ok
			go-1 write 13 14 ok token=1 value=1
			go-1 release 15 16 fail`,
			[]string{"VIOLATION store-tokens", "VIOLATION register", "VIOLATION lost-updates"}},
		{"election: two leaders at once, nothing paused", election, `
			go-1 acquire 0 1 ok token=1
			go-2 acquire 0.5 2 ok token=2
			go-1 release 3 4 ok
			go-2 release 5 6 ok`,
			[]string{"VIOLATION exclusion"}},
		{"plain: two holders at once, nothing paused", plain, `
			go-1 acquire 0 1 ok
			go-2 acquire 0.5 2 ok
			go-1 release 3 4 ok
			go-2 release 5 6 ok`,
			[]string{"VIOLATION exclusion"}},
		{"rw: a writer beside a reader", rw, `
			go-1 acquire 0 1 ok mode=read
			go-2 acquire 0.5 2 ok mode=write
			go-1 release 3 4 ok mode=read
			go-2 release 5 6 ok mode=write`,
			[]string{"VIOLATION exclusion"}},
		{"fair: a later arrival granted first", fair, `
			go-0 acquire 0 1 ok
			go-0 release 2 3 ok
			busy go-2 1100 2500
			go-1 acquire 1100 1101 ok
			go-2 acquire 1110 1600 ok
			go-3 acquire 1400 1500 ok
			go-1 release 1450 1451 ok
			go-3 release 1550 1551 ok
			go-2 release 1700 1701 ok`,
			[]string{"VIOLATION fair-order"}},
		{"fair: a relock waiter overtaken by one invoked after it had queued, within its margin", fair, `
			go-0 acquire 0 1 ok
			go-0 release 2 3 ok
			busy go-2 1100 2500
			go-1 acquire 1100 1101 ok
			go-2 acquire 1110 1600 ok
			go-2 queued 1115 1115 ok value=1
			go-3 acquire 1200 1500 ok
			go-1 release 1450 1451 ok
			go-3 release 1550 1551 ok
			go-2 release 1700 1701 ok`,
			[]string{"VIOLATION fair-order"}},
		{"fair: a process just spawned excuses its own waiters, not the others'", fair, `
			go-0 acquire 0 1 ok
			go-0 release 2 3 ok
			busy go-2 1100 2500
			go-1 acquire 1100 1101 ok
			go-2 acquire 1110 2000 ok
			nemesis spawn 1120 1120 target=java-2
			java-2 acquire 1400 1500 ok
			go-1 release 1450 1451 ok
			java-2 release 1550 1551 ok
			go-2 release 2050 2051 ok`,
			[]string{"VIOLATION fair-order"}},
		{"fair: a retry keeps its place, not one it never had", fair, `
			go-0 acquire 0 1 ok
			go-0 release 2 3 ok
			busy go-2 1100 2500
			go-1 acquire 1100 1101 ok
			go-2 acquire 1105 2400 ok
			java-1 acquire 1500 2110 info
			java-1 acquire 2120 2300 ok
			go-1 release 2200 2201 ok
			java-1 release 2350 2351 ok
			go-2 release 2450 2451 ok`,
			[]string{"VIOLATION fair-order"}},
		{"a waiter never served after the fault healed", plain, `
			nemesis partition 0 100
			go-2 acquire 0 1 ok
			go-1 acquire 50 - none
			go-2 release 2 3 ok
			end=10000`,
			[]string{"VIOLATION liveness", "VIOLATION progress"}},
		{"a Redisson waiter killed past its bound and Redisson's resends", plain, `
			go-1 acquire 0 1 ok
			java-1 acquire 2 - none
			nemesis kill 8000 8000 target=java-1
			go-1 release 13000 13001 ok
			end=20000`,
			[]string{"VIOLATION liveness"}},
		{"a restart of another lock service explains no token regression", onSingle(fenced), `
			go-1 acquire 0 1 ok token=2
			go-1 release 2 3 ok
			nemesis restart-nopersist 4 5 target=elsewhere
			go-2 acquire 6 7 ok token=1
			go-2 release 8 9 ok`,
			[]string{"VIOLATION grant-tokens"}},
		{"a waiter told past its wait", plain, `
			go-1 acquire 0 1 ok
			go-2 acquire 2 5000 fail
			go-1 release 6000 6001 ok`,
			[]string{"VIOLATION liveness"}},
		{"a Redisson waiter told past its wait and Redisson's resends", plain, `
			go-1 acquire 0 1 ok
			java-1 acquire 2 6500 fail
			go-1 release 7000 7001 ok`,
			[]string{"VIOLATION liveness"}},
		{"a waiter told past its wait and its wait for a replica", withAck(plain), `
			go-1 acquire 0 1 ok
			go-2 acquire 2 4500 fail
			go-1 release 6000 6001 ok`,
			[]string{"VIOLATION liveness"}},
	})
}
