package interop

import (
	"testing"
	"time"

	"github.com/relock-go/relock/rlock"
	"github.com/relock-go/relock/test/testkit"
)

// javaWatchdog is the watchdog timeout of the Java peers of the election
// tests: a Go candidate that the Java unlock does not wake (the RLock's
// and RFencedLock's unlock wakes no fair waiter) retries after the lock's
// TTL, at most this.
const javaWatchdog = 2 * time.Second

// A Java service holding Redisson's RFairLock, RFencedLock or RLock of an
// election's name excludes every Go candidate: none is elected while it
// holds the lock, and the first is elected once it unlocks (a fair
// unlock wakes it on its channel; the others' unlock at most the lease
// later), with a token above every token Redisson's RFencedLock took.
func TestElectionExcludedByJavaHolder(t *testing.T) {
	for _, kind := range []string{"fair", "fenced", "lock"} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			rdb, c := setup(t)
			ctx := testkit.Ctx(t, 2*time.Minute)
			name := "election-java-" + kind
			// The fair holder unlocks once the candidate has queued; the
			// others, whose waiters the peer cannot count in the fair
			// queue, after holding a while.
			args := peerArgs(rdb, "hold", kind, name, "--watchdog", javaWatchdog.String(), "--hold", "1500")
			if kind == "fair" {
				args = peerArgs(rdb, "hold", kind, name, "--watchdog", javaWatchdog.String(), "--hold", "100", "--waitsubs", "1")
			}
			java := Start(t, args...)
			locked := java.Await(t, "locked", 30*time.Second)
			elected := make(chan *rlock.Term, 1)
			go func() {
				term, err := c.NewElection(name).Campaign(ctx, "go")
				if err != nil {
					t.Error(err)
				}
				elected <- term
			}()
			unlocked := java.Await(t, "unlocked", 30*time.Second)
			var term *rlock.Term
			select {
			case term = <-elected:
			case <-time.After(javaWatchdog + 10*time.Second):
				t.Fatal("the Go candidate was not elected after the Java holder unlocked")
			}
			if term == nil {
				t.FailNow()
			}
			at := Millis(time.Now())
			if at < unlocked.Float("t_start") {
				t.Fatalf("Go candidate elected at %.0f, before the Java holder unlocked at %.0f", at, unlocked.Float("t_start"))
			}
			t.Logf("%s: Go candidate elected %.1f ms after the Java unlock", kind, at-unlocked.Float("t_start"))
			if kind == "fair" && at-unlocked.Float("t_start") > 5000 {
				t.Fatalf("a Java fair unlock woke the Go candidate after %.0f ms: not by pub/sub", at-unlocked.Float("t_start"))
			}
			if javaToken := int64(locked.Float("token")); term.Token() <= javaToken {
				t.Fatalf("term token %d, not above the Java RFencedLock's %d", term.Token(), javaToken)
			}
			if err := term.Resign(ctx); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// A Go leader excludes Java services: Redisson's RFairLock, RFencedLock
// and RLock of the election's name cannot be taken while it leads; a Java
// fair waiter queued behind it gets the lock at Resign, by pub/sub, and a
// Java RFencedLock then takes a token above the term's.
func TestGoLeaderExcludesJava(t *testing.T) {
	t.Parallel()
	rdb, _ := setup(t)
	// A short lease: a Java RFencedLock waiter wakes by its TTL.
	c, err := rlock.New(rdb, rlock.WithWatchdogTimeout(javaWatchdog))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	ctx := testkit.Ctx(t, 2*time.Minute)
	const name = "election-go-leader"
	term, err := c.NewElection(name).Campaign(ctx, "go")
	if err != nil {
		t.Fatal(err)
	}
	for _, kind := range []string{"fair", "fenced", "lock"} {
		probe := Start(t, peerArgs(rdb, "probe", kind, name)...).Await(t, "probe", 30*time.Second)
		if probe["trylock0"] != false || probe["islocked"] != true || probe["isheld"] != false {
			t.Fatalf("Java %s probe of a Go leader's lock: %v", kind, probe)
		}
	}

	fairWaiter := Start(t, peerArgs(rdb, "wait", "fair", name)...)
	fairWaiter.Await(t, "wait-start", 30*time.Second)
	awaitQueueLen(t, rdb, name, 1)
	resigned := time.Now()
	if err := term.Resign(ctx); err != nil {
		t.Fatal(err)
	}
	got := fairWaiter.Await(t, "acquired", 30*time.Second)
	lat := got.Float("t") - Millis(resigned)
	checkWakeUp(t, "Go Resign -> Java fair waiter", lat)
	if _, err := c.NewElection(name).Leader(ctx); err == nil {
		t.Fatal("a leader while a Java service holds the lock")
	}

	fenced := Start(t, peerArgs(rdb, "hold", "fenced", name, "--hold", "0")...).Await(t, "locked", 30*time.Second)
	if tok := int64(fenced.Float("token")); tok <= term.Token() {
		t.Fatalf("Java RFencedLock token %d after the term's %d: want it greater", tok, term.Token())
	}
}
