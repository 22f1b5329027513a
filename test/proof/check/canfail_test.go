package check

import (
	"testing"

	"github.com/relock-go/relock/test/proof/history"
)

// plainLong is plain with waits longer than a lease and Config.Slack, as
// the proof's are: a waiter can wait on a free lock past progress's bound.
var plainLong = history.NameSpec{Workload: history.Plain, LeaseMS: 1000, WaitMS: 5000}

// fairLong is fair with waits longer than the fair wait timeout (5 s): a
// waiter can outwait a dead entry at the queue's head.
var fairLong = history.NameSpec{Workload: history.Fair, LeaseMS: 1000, WaitMS: 20000}

// deadEntry is a fair lock whose queue holds java-2's entry, killed while
// it waited behind java-1's 7 s hold: holders keep the head's deadline a
// fair wait timeout (5 s) away, so the entry stands there until 12000
// (then go-1 waits out Config.Slack too).
const deadEntry = `
			java-1 acquire 0 1 ok
			java-2 acquire 100 - none
			nemesis kill 500 500 target=java-2
			java-1 release 7000 7001 ok
			go-1 acquire 6000 `

// Checks that can fail: fair order among close arrivals and beside faults
// on other processes, progress on a free lock, waits bounded by their own
// faults only, leftovers, lost updates whatever the last write's outcome.
// Each wrong history stands beside a right one. (Fair histories start with
// go-0's wait: the burst of the object's first waits is not judged.)
func TestChecksCanFail(t *testing.T) {
	runCases(t, []checkCase{
		// Wrong.
		{"fair: the last of close arrivals granted first", fair, `
			go-0 acquire 0 1 ok
			go-0 release 2 3 ok
			busy go-2 1100 2500
			go-1 acquire 1100 1101 ok
			go-2 acquire 1110 1400 ok
			go-3 acquire 1300 1350 ok
			go-1 release 1340 1341 ok
			go-3 release 1351 1352 ok
			go-2 release 1401 1402 ok`,
			[]string{"VIOLATION fair-order"}},
		{"fair: a pause of another process excuses no overtaking", fair, `
			go-0 acquire 0 1 ok
			go-0 release 2 3 ok
			busy go-2 1100 2500
			go-1 acquire 1100 1101 ok
			go-2 acquire 1110 1700 ok
			nemesis pause 1120 1400 target=go-1
			go-3 acquire 1300 1500 ok
			go-1 release 1450 1451 ok
			go-3 release 1550 1551 ok
			go-2 release 1750 1751 ok`,
			[]string{"VIOLATION fair-order"}},
		{"progress: nobody gets a free lock for 10 s after a fault healed, every waiter told in time", plainLong, `
			go-1 acquire 0 1 ok
			go-1 release 2 3 ok
			nemesis partition 10 100
			go-2 acquire 3000 8000 fail
			go-3 acquire 3100 8100 fail
			go-2 acquire 8200 13200 fail
			go-1 acquire 13300 13301 ok
			go-1 release 13302 13303 ok`,
			[]string{"VIOLATION progress"}},
		{"progress: a fault that began later excuses no wait on a free lock before it", plainLong, `
			go-1 acquire 0 1 ok
			go-1 release 2 3 ok
			go-2 acquire 100 4900 fail
			nemesis partition 4000 4500
			go-1 acquire 9000 9001 ok
			go-1 release 9002 9003 ok`,
			[]string{"VIOLATION progress"}},
		{"progress: a dead entry holds a fair queue up a fair wait timeout at most", fairLong, deadEntry + `15000 ok
			go-1 release 15001 15002 ok`,
			[]string{"VIOLATION progress", "measured progress"}},
		{"progress: without a dead entry, a free fair lock is granted within a lease", fairLong, `
			java-1 acquire 0 1 ok
			java-1 release 7000 7001 ok
			go-1 acquire 6000 11500 ok
			go-1 release 11501 11502 ok`,
			[]string{"VIOLATION progress"}},
		{"progress: a process killed after its wait failed leaves no entry", fairLong, `
			java-1 acquire 0 1 ok
			java-2 acquire 100 300 fail
			nemesis kill 500 500 target=java-2
			java-1 release 7000 7001 ok
			go-1 acquire 6000 11500 ok
			go-1 release 11501 11502 ok`,
			[]string{"VIOLATION progress"}},
		{"progress: a dead entry excuses one free stretch, not the next", fairLong, deadEntry + `11500 ok
			go-1 release 11501 11502 ok
			go-3 acquire 11000 16000 ok
			go-3 release 16001 16002 ok`,
			[]string{"VIOLATION progress", "measured progress"}},
		{"progress: a dead entry excuses nothing after the turns ahead of it", fairLong, `
			java-1 acquire 0 1 ok
			java-2 acquire 100 - none
			nemesis kill 500 500 target=java-2
			java-1 release 600 601 ok
			java-4 acquire 59000 59001 ok
			java-4 release 61000 61001 ok
			go-1 acquire 60000 65000 ok
			go-1 release 65001 65002 ok`,
			[]string{"VIOLATION progress"}},
		{"liveness: a 2 s wait does not chain through faults on other processes", plain, `
			go-1 acquire 0 1 ok
			go-2 acquire 10 13500 fail
			nemesis pause 100 2500 target=go-1
			nemesis pause 2600 5000 target=java-1
			nemesis partition 5100 7500 target=go-3
			nemesis pause 7600 10000 target=go-1
			nemesis latency 10100 11500 target=java-1
			go-1 release 13600 13601 ok
			java-1 acquire 14000 14001 ok
			java-1 release 14002 14003 ok
			go-3 acquire 14004 14005 ok
			go-3 release 14006 14007 ok`,
			[]string{"VIOLATION liveness"}},
		{"leftovers: a lock still held after the run", plain, `
			go-1 acquire 0 1 ok
			go-1 release 2 3 ok
			leftover single proof:single:plain:0 hash -1 lock`,
			[]string{"VIOLATION leftovers"}},
		{"rw: an update lost, though the last write's outcome is unknown", rw, `
			go-1 acquire 0 1 ok mode=write
			go-2 acquire 0.5 2 ok mode=write
			go-1 read 3 4 ok value=0
			go-2 read 3 4 ok value=0
			go-1 write 5 6 ok value=1
			go-2 write 7 8 ok value=1
			go-1 release 9 10 ok mode=write
			go-2 release 11 12 ok mode=write
			go-3 acquire 13 14 ok mode=write
			go-3 read 15 16 ok value=1
			go-3 write 17 - none value=2
			nemesis kill 18 18 target=go-3`,
			[]string{"VIOLATION exclusion", "VIOLATION lost-updates"}},

		// Right.
		{"fair: close arrivals, within the margin, in either order", fair, `
			go-0 acquire 0 1 ok
			go-0 release 2 3 ok
			busy go-2 1100 2500
			go-1 acquire 1100 1101 ok
			go-2 acquire 1110 1300 ok
			go-3 acquire 1130 1250 ok
			go-1 release 1240 1241 ok
			go-3 release 1251 1252 ok
			go-2 release 1301 1302 ok`,
			nil},
		{"fair: a waiter whose process wrote nothing meanwhile (stalled) may have queued late", fair, `
			go-0 acquire 0 1 ok
			go-0 release 2 3 ok
			go-1 acquire 1100 1101 ok
			go-2 acquire 1110 1300 ok
			go-3 acquire 1200 1250 ok
			go-1 release 1240 1241 ok
			go-3 release 1251 1252 ok
			go-2 release 1301 1302 ok`,
			nil},
		{"fair: a waiter whose own process was paused is not judged", fair, `
			go-0 acquire 0 1 ok
			go-0 release 2 3 ok
			go-1 acquire 1100 1101 ok
			go-2 acquire 1110 1700 ok
			nemesis pause 1120 1400 target=go-2
			go-3 acquire 1300 1500 ok
			go-1 release 1450 1451 ok
			go-3 release 1550 1551 ok
			go-2 release 1750 1751 ok`,
			nil},
		{"progress: a dead entry in a fair queue, the lock granted when its deadline passed", fairLong, deadEntry + `11500 ok
			go-1 release 11501 11502 ok`,
			[]string{"measured progress"}},
		{"progress: a killed holder's lock is granted a lease after the kill", plainLong, `
			go-1 acquire 0 1 ok
			go-2 acquire 100 2600 ok
			nemesis kill 500 500 target=go-1
			go-2 release 2700 2701 ok`,
			nil},
		{"progress: waiters granted in turn while the lock is held", plainLong, `
			go-1 acquire 0 1 ok
			go-2 acquire 10 3000 ok
			go-1 release 2990 2991 ok
			go-3 acquire 20 4500 ok
			go-2 release 4490 4491 ok
			go-3 release 4600 4601 ok`,
			nil},
		{"liveness: a wait bounded by back-to-back faults on its own process", plain, `
			go-1 acquire 0 1 ok
			go-2 acquire 10 13500 fail
			nemesis pause 100 2500 target=go-2
			nemesis partition 2600 5000 target=go-2
			nemesis pause 5100 7500 target=go-2
			nemesis latency 7600 10000 target=go-2
			nemesis partition 10100 11500 target=go-2
			go-1 release 13600 13601 ok`,
			nil},
		{"leftovers: counters meant to stay, and a latch that expires", plain, `
			go-1 acquire 0 1 ok
			go-1 release 2 3 ok
			leftover single redisson_lock_token:{proof:single:fenced:0} string -1 token_counter
			leftover single redisson_unlock_latch:{proof:single:plain:0}:x string 4000 unlock_latch
			leftover single proof:single:latch:0:7 string -1 latch_count
			leftover single proof:single:rate:0 hash -1 rate_limiter
			leftover single {proof:single:rate:0}:value string -1 rate_limiter's_permits
			leftover single {proof:single:rate:0}:permits zset -1 rate_limiter's_permits`,
			nil},
		{"leftovers: a fair queue whose last deadline the run did not record is measured", plain, `
			go-1 acquire 0 1 ok
			go-1 release 2 3 ok
			leftover single redisson_lock_queue:{proof:single:fair:1} list -1 fair_queue`,
			[]string{"measured leftovers"}},
		{"leftovers: a run that did not list them is unchecked", plain, `
			go-1 acquire 0 1 ok
			go-1 release 2 3 ok
			no-leftovers`,
			[]string{"unchecked leftovers"}},
		{"rw: no update lost, though the last write's outcome is unknown", rw, `
			go-1 acquire 0 1 ok mode=write
			go-1 read 3 4 ok value=0
			go-1 write 5 6 ok value=1
			go-1 release 9 10 ok mode=write
			go-3 acquire 13 14 ok mode=write
			go-3 read 15 16 ok value=1
			go-3 write 17 - none value=2
			nemesis kill 18 18 target=go-3`,
			nil},
	})
}

// A lost update is dated at the write that overwrote it, and counted under
// the fault whose span holds that write, not at the fleet's final read
// long after.
func TestLostUpdatesAreDatedAtTheirWrites(t *testing.T) {
	r, err := Check(parseRun(t, plain, `
		go-1 acquire 0 1 ok
		go-1 read 2 3 ok value=0
		nemesis pause 4 1500 target=go-1
		go-2 acquire 5 1100 ok
		go-2 read 1101 1102 ok value=0
		go-2 write 1103 1104 ok value=1
		go-2 release 1105 1106 ok
		go-1 write 1501 1502 ok value=1
		go-1 release 1504 1505 fail
		final read 60000 60001 ok value=1`), Config{})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range r.Findings {
		if f.Check == CheckLostUpdates && f.At != ms("1502", t) {
			t.Errorf("%v: dated at %v, want the overwriting write's return (+1.502s)", f, f.Since)
		}
	}
	for _, c := range r.Cells {
		if c.Fault == NoFault && c.Measured > 0 {
			t.Errorf("%d findings out of every fault's span: %+v", c.Measured, c)
		}
	}
}

// What liveness and fair order cannot judge is counted, not dropped: a
// waiter killed before its bound, a fair waiter a fault hit or in the
// burst of an object's first waits.
func TestWhatIsNotJudgedIsCounted(t *testing.T) {
	r, err := Check(parseRun(t, plain, `
		go-1 acquire 0 - none
		nemesis kill 500 500 target=go-1
		end=10000`), Config{})
	if err != nil {
		t.Fatal(err)
	}
	if n := r.Names[0]; n.WaitersUnjudged != 1 || n.Waiters != 0 {
		t.Fatalf("waiters judged %d, not judged %d: want 0 and 1", n.Waiters, n.WaitersUnjudged)
	}
	r, err = Check(parseRun(t, fair, `
		go-0 acquire 0 1 ok
		go-0 release 2 3 ok
		go-1 acquire 1100 1200 ok
		nemesis partition 1150 1160 target=go-1
		go-1 release 1300 1301 ok`), Config{})
	if err != nil {
		t.Fatal(err)
	}
	if n := r.Names[0]; n.FairSkipped != 2 || n.FairWaiters != 0 {
		t.Fatalf("fair waiters judged %d, not judged %d: want 0 and 2 (go-0's, in the burst of the first waits; go-1's, partitioned)", n.FairWaiters, n.FairSkipped)
	}
}
