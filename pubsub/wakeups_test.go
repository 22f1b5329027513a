package pubsub

import (
	"context"
	"testing"
	"time"
)

// A wake-up kept while nobody slept is never left unused while the lock
// may be free: a newcomer that joined behind takes it once no other awake
// waiter is left to use it, instead of sleeping on it.
func TestJoinedBehindTakesAWakeUpNobodyElseCanUse(t *testing.T) {
	h, mr, _ := newHub(t)
	a := subscribe(t, h, "ch")
	asleep := waitAsync(a, time.Minute)
	untilSleeping(t, h, 1)
	b, _, ok := h.JoinBehind("ch")
	if !ok {
		t.Fatal("could not join behind a sleeping waiter")
	}
	defer b.Close()
	// a is woken, takes the lock and leaves; its release comes before b
	// sleeps: b is the only waiter left to retry.
	mr.Publish("ch", "0")
	awaitWoken(t, asleep, "the first waiter")
	a.Close()
	mr.Publish("ch", "0")
	handled(t, h, mr)
	// (A Wait that sleeps would sleep a minute.)
	awaitWoken(t, waitAsync(b, time.Minute), "the newcomer, the only waiter left to retry on the release,")
}

// A waiter that leaves without using the wake-up kept for it hands it to
// a sleeper: a release is retried by somebody.
func TestWakeUpKeptForAWaiterThatLeavesWakesASleeper(t *testing.T) {
	wokenByALeaver(t)
}

// wokenByALeaver has a waiter busy with an attempt when a release comes
// (the wake-up is kept for it) and one that joined behind it asleep; the
// first leaves without using it, and the test awaits the sleeper's wake.
// It returns the Hub and the waiter woken, awake.
func wokenByALeaver(t *testing.T) (*Hub, *Subscription) {
	t.Helper()
	h, mr, _ := newHub(t)
	a := subscribe(t, h, "ch")
	mr.Publish("ch", "0")
	handled(t, h, mr)
	b, _, ok := h.JoinBehind("ch")
	if !ok {
		t.Fatal("could not join behind a waiting waiter")
	}
	t.Cleanup(func() { b.Close() })
	asleep := waitAsync(b, time.Minute)
	untilSleeping(t, h, 1)
	// a's attempt ends its wait (its ctx ended, or it took the lock): the
	// kept wake-up is b's.
	a.Close()
	awaitWoken(t, asleep, "the sleeper")
	return h, b
}

// A wake-up that a leaving waiter hands on is no release's: the sleeper
// it wakes retries, and if that retry fails (the lock is held, by the
// leaver itself maybe), no other client took a release from this one, so
// the channel's share does not count a loss (its step and its count of
// releases the others came too late for stay as they were).
func TestWakeUpHandedOnByALeaverCountsNoLoss(t *testing.T) {
	h, b := wokenByALeaver(t)
	s := h.existingShard("ch")
	s.mu.Lock()
	e := s.entries["ch"]
	e.share.counted(2, 1)
	e.share.step, e.share.late = maxStep, 3
	s.mu.Unlock()
	// b's retry failed: it waits again.
	if _, err := b.Wait(context.Background(), 0); err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	step, late := e.share.step, e.share.late
	s.mu.Unlock()
	if step != maxStep || late != 3 {
		t.Fatalf("after a failed retry on a wake-up a leaver handed on: step %v, late %d; want %v, 3 (no loss counted)", step, late, maxStep)
	}
}
