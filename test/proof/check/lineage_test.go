package check

import "testing"

// setBack is a read-write counter set back by a writer whose hold broke:
// go-1 reads 1, the hold is lost, go-2, java-1 and go-2 again write 2, 3
// and 4, then go-1 writes the 2 it computed before, and java-1 writes 3
// on it. One update is lost at go-1's write (go-2's 2), and with it the
// two written on go-2's 2 (java-1's 3, go-2's 4); java-1's second 3 loses
// nothing of its own. pause is the nemesis line, if any, that explains
// go-1's loss.
func setBack(pause string) string {
	return `
		go-3 acquire 0 1 ok mode=write
		go-3 read 2 3 ok value=0
		go-3 write 4 5 ok value=1
		go-3 release 6 7 ok mode=write
		go-1 acquire 10 11 ok mode=write
		go-1 read 12 13 ok value=1
		` + pause + `
		go-2 acquire 15 1100 ok mode=write
		go-2 read 1101 1102 ok value=1
		go-2 write 1103 1104 ok value=2
		go-2 release 1105 1106 ok mode=write
		java-1 acquire 1107 1110 ok mode=write
		java-1 read 1111 1112 ok value=2
		java-1 write 1113 1114 ok value=3
		java-1 release 1115 1116 ok mode=write
		go-2 acquire 1117 1120 ok mode=write
		go-2 read 1121 1122 ok value=3
		go-2 write 1123 1124 ok value=4
		go-2 release 1125 1126 ok mode=write
		go-1 write 1501 1502 ok value=2
		go-1 release 1503 1504 fail mode=write`
}

// Lost updates follow the counter's lineage: a write that sets the
// counter back loses the updates of the branch it cuts off, explained as
// its overlap is; the increments after it, which write those values
// again, lose nothing of their own, and two of them that continue one
// write still lose one.
func TestLostUpdatesFollowTheCounter(t *testing.T) {
	runCases(t, []checkCase{
		{"rw: a paused writer sets the counter back, and the increments after it write its values again", rw, setBack("nemesis pause 14 1500 target=go-1") + `
			java-1 acquire 1510 1511 ok mode=write
			java-1 read 1512 1513 ok value=2
			java-1 write 1514 1515 ok value=3
			java-1 release 1516 1517 ok mode=write
			final read 1600 1601 ok value=3`,
			[]string{"measured exclusion", "measured lost-updates"}},
		{"rw: a writer that was not paused sets the counter back", rw, setBack("") + `
			java-1 acquire 1510 1511 ok mode=write
			java-1 read 1512 1513 ok value=2
			java-1 write 1514 1515 ok value=3
			java-1 release 1516 1517 ok mode=write
			final read 1600 1601 ok value=3`,
			[]string{"VIOLATION exclusion", "VIOLATION lost-updates"}},
		{"rw: after a paused writer set the counter back, two writers continue its write", rw, setBack("nemesis pause 14 1500 target=go-1") + `
			java-1 acquire 1510 1511 ok mode=write
			java-1 read 1512 1513 ok value=2
			go-2 acquire 1514 1515 ok mode=write
			go-2 read 1516 1517 ok value=2
			java-1 write 1518 1519 ok value=3
			go-2 write 1520 1521 ok value=3
			java-1 release 1522 1523 ok mode=write
			go-2 release 1524 1525 ok mode=write
			final read 1600 1601 ok value=3`,
			[]string{"measured exclusion", "measured lost-updates", "VIOLATION exclusion", "VIOLATION lost-updates"}},
	})
}

// The updates a set-back cuts off count on the side of the holder whose
// hold broke, at its write, under its cause.
func TestASetBackCountsOnTheBrokenHold(t *testing.T) {
	r, err := Check(parseRun(t, rw, setBack("nemesis pause 14 1500 target=go-1")+`
		final read 1600 1601 ok value=2`), Config{})
	if err != nil {
		t.Fatal(err)
	}
	var lost int
	for _, f := range r.Findings {
		if f.Check != CheckLostUpdates {
			continue
		}
		lost++
		if f.Side != "go" || f.Cause != "pause" || f.At != ms("1502", t) {
			t.Errorf("%v: side %q, cause %q, at %v; want go's, pause, at go-1's write (+1.502s)", f, f.Side, f.Cause, f.Since)
		}
	}
	if lost != 2 || r.Names[0].LostUpdates != 3 {
		t.Fatalf("%d lost-updates findings, %d updates lost: want 2 (the pair, the rest), 3", lost, r.Names[0].LostUpdates)
	}
}
