package check

import "testing"

// A hold that broke is explained only by a cause on the holder that lost
// it: the earlier holder, or the later one if its acquisition was in
// flight when the earlier one's returned. Each wrong history (a fault on
// the later holder, or one its promise covers) stands beside a right one
// (the same fault on the holder that lost it).
func TestCausesBelongToTheHolderThatLost(t *testing.T) {
	runCases(t, []checkCase{
		// Wrong.
		{"a Java waiter partitioned while it waited explains no overlap with a Go holder nothing touched", plain, `
			go-1 acquire 0 1 ok
			java-1 acquire 2 1500 ok
			nemesis partition 100 1200 target=java-1
			go-1 release 1600 1601 ok
			java-1 release 1700 1701 ok`,
			[]string{"VIOLATION exclusion"}},
		{"a Java waiter slowed by 5 ms while it waited explains no overlap with a Go holder nothing touched", plain, `
			go-1 acquire 0 1 ok
			java-1 acquire 2 1500 ok
			nemesis latency 100 1200 target=java-1
			go-1 release 1600 1601 ok
			java-1 release 1700 1701 ok`,
			[]string{"VIOLATION exclusion"}},
		{"a partition of everyone: a Go holder never told Lost, and a Java process gets in", plain, `
			go-1 acquire 0 1 ok
			nemesis partition 100 2500
			java-1 acquire 2 2700 ok
			go-1 release 2800 2801 fail
			java-1 release 2900 2901 ok`,
			[]string{"VIOLATION exclusion"}},
		{"a pause of a holder that never held first explains nothing", plain, `
			go-1 acquire 1 2 ok
			go-2 acquire 3 1600 ok
			nemesis pause 5 1500 target=go-2
			go-1 release 1700 1701 ok
			go-2 release 1800 1801 ok`,
			[]string{"VIOLATION exclusion"}},
		{"a Go token a replica acknowledged, granted again to Java after a planned failover", onAck(fenced), `
			go-1 acquire 0 1 ok token=2
			go-1 release 2 3 ok
			nemesis failover-ack 4 6 target=ack
			java-1 acquire 7 8 ok token=2
			java-1 release 9 10 ok`,
			[]string{"VIOLATION grant-tokens"}},
		{"a Go holder a replica acknowledged, overlapped by Java after a planned failover", onAck(plain), `
			go-1 acquire 0 1 ok
			nemesis failover-ack 2 6 target=ack
			java-1 acquire 3 8 ok
			go-1 release 9 10 ok
			java-1 release 11 12 ok`,
			[]string{"VIOLATION exclusion"}},

		// Right.
		{"a Java holder partitioned while it held is overlapped by a Go holder", plain, `
			java-1 acquire 0 1 ok
			nemesis partition 100 1200 target=java-1
			go-1 acquire 2 1500 ok
			java-1 release 1600 1601 fail
			go-1 release 1700 1701 ok`,
			[]string{"measured exclusion"}},
		{"a partition of everyone: a Go holder told Lost before a Java process gets in", plain, `
			go-1 acquire 0 1 ok
			nemesis partition 100 2500
			go-1 lost 1000 1000 ok
			java-1 acquire 2 2700 ok
			go-1 release 2800 2801 fail
			java-1 release 2900 2901 ok`,
			nil},
		{"a partition of everyone: a Java holder, told nothing, and a Go process gets in", plain, `
			java-1 acquire 0 1 ok
			nemesis partition 100 2500
			go-1 acquire 2 2700 ok
			java-1 release 2800 2801 fail
			go-1 release 2900 2901 ok`,
			[]string{"measured exclusion"}},
		{"a holder whose acquisition was in flight may have held first: its own pause explains", plain, `
			go-2 acquire 0 1600 ok
			go-1 acquire 1 1200 ok
			nemesis pause 5 1500 target=go-2
			go-1 release 1700 1701 ok
			go-2 release 1800 1801 fail`,
			[]string{"measured exclusion"}},
		{"a Java token granted again to Go after a planned failover", onAck(fenced), `
			java-1 acquire 0 1 ok token=2
			java-1 release 2 3 ok
			nemesis failover-ack 4 6 target=ack
			go-1 acquire 7 8 ok token=2
			go-1 release 9 10 ok`,
			[]string{"measured grant-tokens"}},
		{"a Java holder overlapped by Go after a planned failover", onAck(plain), `
			java-1 acquire 0 1 ok
			nemesis failover-ack 2 6 target=ack
			go-1 acquire 3 8 ok
			java-1 release 9 10 ok
			go-1 release 11 12 ok`,
			[]string{"measured exclusion"}},
	})
}

// A fair waiter whose own process was paused just before it arrived may
// have kept its place from before the pause (a grant it could not claim):
// it overtakes nobody. A pause of the overtaken waiter's holder does not
// count so.
func TestFairOvertakerThatKeptItsPlace(t *testing.T) {
	runCases(t, []checkCase{
		{"fair: a waiter paused just before it arrived is no later arrival", fair, `
			go-0 acquire 0 1 ok
			go-0 release 2 3 ok
			busy go-2 1100 2500
			go-1 acquire 1100 1101 ok
			nemesis pause 1102 1190 target=go-3
			go-2 acquire 1110 1700 ok
			go-3 acquire 1200 1500 ok
			go-1 release 1450 1451 ok
			go-3 release 1550 1551 ok
			go-2 release 1750 1751 ok`,
			nil},
		{"fair: a pause of the holder keeps nobody's place", fair, `
			go-0 acquire 0 1 ok
			go-0 release 2 3 ok
			busy go-2 1100 2500
			go-1 acquire 1100 1101 ok
			nemesis pause 1102 1190 target=go-1
			go-2 acquire 1110 1700 ok
			go-3 acquire 1300 1500 ok
			go-1 release 1450 1451 ok
			go-3 release 1550 1551 ok
			go-2 release 1750 1751 ok`,
			[]string{"VIOLATION fair-order"}},
	})
}
