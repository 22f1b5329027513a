package check

import "testing"

// Right histories, written by hand: the checker must pass each, with
// what cannot hold (measured) listed.
func TestCheckPassesRightHistories(t *testing.T) {
	runCases(t, []checkCase{
		{"fenced: a holder paused past its lease has its write rejected", fenced, `
			go-1 acquire 0 1 ok token=1
			go-1 read 2 3 ok token=1 value=0
			nemesis pause 4 1500 target=go-1
			go-2 acquire 5 1100 ok token=2
			go-2 read 1101 1102 ok token=2 value=0
			go-2 write 1103 1104 ok token=2 value=1
			go-2 release 1105 1106 ok
			go-1 write 1501 1502 fail token=1 value=1
			go-1 lost 1503 1503 ok
			go-1 release 1504 1505 fail
			go-3 acquire 1506 1507 ok token=3
			go-3 read 1508 1509 ok token=3 value=1
			go-3 write 1510 1511 ok token=3 value=2
			go-3 release 1512 1513 ok
			final read 1600 1601 ok value=2`,
			[]string{"measured exclusion"}},
		{"fenced: killed holders' writes, one taken effect, one not", fenced, `
			go-1 acquire 0 1 ok token=1
			go-1 read 2 3 ok token=1 value=0
			go-1 write 4 - none token=1 value=1
			nemesis kill 5 5 target=go-1
			go-2 acquire 6 1100 ok token=2
			go-2 read 1101 1102 ok token=2 value=1
			go-2 write 1103 1200 info token=2 value=2
			go-2 release 1201 1202 info
			go-3 acquire 1203 2200 ok token=3
			go-3 read 2201 2202 ok token=3 value=1
			go-3 write 2203 2204 ok token=3 value=2
			go-3 release 2205 2206 ok
			final read 2300 2301 ok value=2`,
			nil},
		{"semaphore: two inside two permits", sem2, `
			go-1 acquire 0 1 ok
			go-1 enter 2 3 ok count=1
			java-1 acquire 2.5 4 ok
			java-1 enter 5 6 ok count=2
			go-1 leave 7 8 ok
			go-1 release 9 10 ok
			java-1 leave 11 12 ok
			java-1 release 13 14 ok`,
			nil},
		{"pesemaphore: a permit whose lease ran out is taken again", pesem, `
			go-1 acquire 0 1 ok
			go-1 enter 2 3 ok count=1
			go-2 acquire 50 150 ok
			go-2 enter 151 152 ok count=1
			go-1 lost 160 160 ok
			go-1 release 202 203 fail
			go-2 release 210 211 ok`,
			[]string{"measured permits"}},
		{"pesemaphore: a holder paused before it marked in counts one too many", pesem, `
			go-1 acquire 0 1 ok
			nemesis pause 2 300 target=go-1
			go-1 enter 1.5 301 ok count=2
			go-2 acquire 150 151 ok
			go-2 enter 152 153 ok count=1
			go-2 release 160 161 ok
			go-1 release 302 303 fail`,
			[]string{"measured permits"}},
		{"pesemaphore: a holder marked in as it learns its lease ran out in a pause is inside until it leaves", pesem, `
			go-1 acquire 0 400 ok
			nemesis pause 1 399 target=go-1
			go-1 enter 401 403 ok count=1
			go-1 lost 401.5 401.5 ok
			go-2 acquire 401 402 ok
			go-2 enter 404 405 ok count=2
			go-2 leave 406 407 ok
			go-2 release 408 409 ok
			go-1 leave 410 411 ok
			go-1 release 412 413 fail`,
			[]string{"measured permits"}},
		{"a Redisson waiter told past its wait by no more than Redisson's resends", plain, `
			go-1 acquire 0 1 ok
			java-1 acquire 2 4000 fail
			go-1 release 6000 6001 ok`,
			[]string{"measured liveness"}},
		{"on Sentinel, a Redisson waiter told past its wait by its resends, each a wait for a replica longer", withAck(plain), `
			go-1 acquire 0 1 ok
			java-1 acquire 2 8000 fail
			go-1 release 9000 9001 ok`,
			[]string{"measured liveness"}},
		{"a Redisson waiter killed past its bound, before Redisson's resends, is not judged", plain, `
			go-1 acquire 0 1 ok
			java-1 acquire 2 - none
			nemesis kill 5000 5000 target=java-1
			go-1 release 9000 9001 ok
			end=20000`,
			nil},
		{"fair: a waiter overtaken just after a fault is not judged", fair, `
			go-0 acquire 0 1 ok
			go-0 release 2 3 ok
			nemesis reset 1100 1105
			go-1 acquire 1106 1107 ok
			go-2 acquire 1110 1600 ok
			go-3 acquire 1400 1500 ok
			go-1 release 1450 1451 ok
			go-3 release 1550 1551 ok
			go-2 release 1700 1701 ok`,
			nil},
		{"fair: a waiter of a process just spawned, overtaken, is not judged", fair, `
			go-0 acquire 0 1 ok
			go-0 release 2 3 ok
			go-1 acquire 1100 1101 ok
			nemesis spawn 1105 1105 target=java-2
			java-2 acquire 1110 2000 ok
			go-2 acquire 1400 1500 ok
			go-1 release 1450 1451 ok
			go-2 release 1550 1551 ok
			java-2 release 2050 2051 ok`,
			nil},
		{"fair: grants in arrival order", fair, `
			go-0 acquire 0 1 ok
			go-0 release 2 3 ok
			go-1 acquire 1100 1101 ok
			go-2 acquire 1110 1400 ok
			java-1 acquire 1300 1500 ok
			go-1 release 1350 1351 ok
			go-2 release 1450 1451 ok
			java-1 release 1550 1551 ok`,
			nil},
		{"fair: a relock waiter that queued late is not overtaken by those invoked before it queued", fair, `
			go-0 acquire 0 1 ok
			go-0 release 2 3 ok
			busy go-2 1100 2500
			go-1 acquire 1100 1101 ok
			go-2 acquire 1110 1600 ok
			go-3 acquire 1400 1500 ok
			go-2 queued 1450 1450 ok value=1
			go-1 release 1450 1451 ok
			go-3 release 1550 1551 ok
			go-2 release 1700 1701 ok`,
			nil},
		{"fair: a retry after an attempt that timed out keeps the attempt's place", fair, `
			go-0 acquire 0 1 ok
			go-0 release 2 3 ok
			go-1 acquire 1100 1101 ok
			java-1 acquire 1105 2110 info
			go-2 acquire 1110 2400 ok
			java-1 acquire 2120 2300 ok
			go-1 release 2200 2201 ok
			java-1 release 2350 2351 ok
			go-2 release 2450 2451 ok`,
			nil},
		{"election: a leader paused past its lease, terms growing", election, `
			go-1 acquire 0 1 ok token=1
			nemesis pause 2 1500 target=go-1
			go-2 acquire 3 1100 ok token=2
			go-1 lost 1501 1501 ok
			go-2 release 1600 1601 ok`,
			[]string{"measured exclusion"}},
		{"plain: a Redisson holder under a partition", plain, `
			java-1 acquire 0 1 ok
			nemesis partition 2 1500 target=java-1
			go-2 acquire 3 1100 ok
			go-2 release 1200 1201 ok
			java-1 release 1600 1601 fail`,
			[]string{"measured exclusion"}},
		{"rw: readers together, then a writer", rw, `
			go-1 acquire 0 1 ok mode=read
			java-1 acquire 0.5 2 ok mode=read
			go-1 read 3 4 ok value=0
			java-1 read 3 4 ok value=0
			go-1 release 5 6 ok mode=read
			java-1 release 5 6 ok mode=read
			go-2 acquire 4 7 ok mode=write
			go-2 read 8 9 ok value=0
			go-2 write 10 11 ok value=1
			go-2 release 12 13 ok mode=write`,
			nil},
		{"a killed waiter is not judged", plain, `
			go-1 acquire 0 - none
			nemesis kill 500 500 target=go-1
			end=10000`,
			nil},
		{"a waiter still waiting when the run ended", plain, `
			go-2 acquire 0 1 ok
			go-1 acquire 9500 - none
			go-2 release 2 3 ok
			end=10000`,
			nil},

		{"a waiter told within its wait and its wait for a replica", withAck(plain), `
			go-1 acquire 0 1 ok
			go-2 acquire 2 3900 fail
			go-1 release 6000 6001 ok`,
			nil},

		// What cannot hold: measured.
		{"a restart without persistence of the name's lock service takes its tokens back", onSingle(fenced), `
			go-1 acquire 0 1 ok token=2
			go-1 release 2 3 ok
			nemesis restart-nopersist 4 5 target=single
			go-2 acquire 6 7 ok token=1
			go-2 release 8 9 ok`,
			[]string{"measured grant-tokens"}},
		{"what a restart loses shows just after it healed", onSingle(fenced), `
			nemesis restart-everysec 0 1 target=single
			java-1 acquire 500 501 ok token=9
			java-1 release 502 503 ok
			go-1 acquire 600 601 ok token=7
			go-1 release 602 603 ok`,
			[]string{"measured grant-tokens"}},
		{"semaphore: a Redisson release past its response timeout, resent and applied twice", sem1, `
			java-1 acquire 0 1 ok
			java-1 release 2 1500 ok
			go-1 acquire 1600 1601 ok
			go-1 enter 1602 1603 ok count=1
			go-2 acquire 1604 1605 ok
			go-2 enter 1606 1607 ok count=2
			go-1 leave 1608 1609 ok
			go-1 release 1610 1611 ok
			go-2 leave 1612 1613 ok
			go-2 release 1614 1615 ok`,
			[]string{"measured permits"}},
		{"a failover with replica acknowledgement loses a Redisson holder's token", onAck(fenced), `
			java-1 acquire 0 1 ok token=2
			nemesis failover-ack 2 4 target=ack
			java-1 release 5 6 fail
			go-1 acquire 7 8 ok token=2
			go-1 release 9 10 ok`,
			[]string{"measured grant-tokens"}},
		{"after a regression a failover explains, acquisitions concurrent with the first after it are not ordered against it", onAck(fenced), `
			java-1 acquire 0 1 ok token=10
			java-1 release 1.5 1.8 ok
			nemesis failover-ack 2 4 target=ack
			go-1 acquire 5 20 ok token=3
			go-2 acquire 6 19 ok token=2
			go-2 release 19.2 19.4 ok
			go-1 release 21 22 ok`,
			[]string{"measured grant-tokens"}},
		{"a failover with replica acknowledgement loses a semaphore's acquisition", onAck(sem1), `
			go-1 acquire 0 1 ok
			go-1 enter 2 3 ok count=1
			nemesis failover-ack 4 6 target=ack
			go-2 acquire 7 8 ok
			go-2 enter 9 10 ok count=1
			go-1 leave 11 12 ok
			go-1 release 13 14 ok
			go-2 leave 15 16 ok
			go-2 release 17 18 ok`,
			[]string{"measured permits"}},
		{"plain: a paused holder overlaps, and an update is lost", plain, `
			go-1 acquire 0 1 ok
			go-1 read 2 3 ok value=0
			nemesis pause 4 1500 target=go-1
			go-2 acquire 5 1100 ok
			go-2 read 1101 1102 ok value=0
			go-2 write 1103 1104 ok value=1
			go-2 release 1105 1106 ok
			go-1 write 1501 1502 ok value=1
			go-1 release 1504 1505 fail
			final read 1600 1601 ok value=1`,
			[]string{"measured exclusion", "measured lost-updates"}},
		{"fenced: two holders granted one token across a failover both write, the store apart", fenced, `
			store-apart
			java-1 acquire 0 1 ok token=5
			nemesis failover 2 10
			java-1 read 11 12 ok token=5 value=0
			java-2 acquire 3 11 ok token=5
			java-2 read 12 13 ok token=5 value=0
			java-1 write 14 15 ok token=5 value=1
			java-2 write 16 17 ok token=5 value=1
			java-1 release 18 19 ok
			java-2 release 20 21 ok`,
			[]string{"measured grant-tokens", "measured exclusion", "measured lost-updates"}},
		{"fenced: a restart without persistence resets the counter", fenced, `
			go-1 acquire 0 1 ok token=1
			go-1 read 2 3 ok token=1 value=0
			go-1 write 4 5 ok token=1 value=1
			go-1 release 6 7 ok
			nemesis restart-nopersist 10 20
			go-2 acquire 30 31 ok token=1
			go-2 read 32 33 ok token=1 value=0
			go-2 write 34 35 ok token=1 value=1
			go-2 release 36 37 ok`,
			[]string{"measured grant-tokens", "measured register", "measured lost-updates"}},
	})
}
