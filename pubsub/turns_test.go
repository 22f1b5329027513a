package pubsub

import (
	"testing"
	"time"

	"github.com/relock-go/relock/internal/keys"
)

// Clients other than relock's that listen take their turns until they
// have come too late at the longest step (64 ms) eight times in a row;
// one of them taking the lock makes them take turns again. Among relock
// Clients only there are none to take.
func TestShareTurnsEndAfterTheLongestStepsInVain(t *testing.T) {
	s := share{}
	s.counted(2, 1)
	if !s.turns() {
		t.Fatal("a foreign subscriber just counted does not take turns")
	}
	s.won()
	late := 0
	for range 20 {
		if !s.turns() {
			break
		}
		if s.released() == 64*time.Millisecond {
			late++
		}
		s.won()
	}
	if s.turns() || late != 8 {
		t.Fatalf("turns %v after coming too late %d times at the longest step, want none after 8", s.turns(), late)
	}
	s.lost()
	if !s.turns() {
		t.Fatal("a foreign subscriber that took the lock does not take turns again")
	}
	s.counted(3, 0)
	if s.turns() {
		t.Fatal("relock Clients only take turns of a foreign client")
	}
}

// A release script's count sets the share of a channel this client
// listens on at once; for one it does not listen on, Counted answers as a
// fresh share with those counts would.
func TestCountedSetsTheShare(t *testing.T) {
	h, _, _ := newHub(t)
	sub := subscribe(t, h, "ch")
	defer sub.Close()
	if d, turns := h.StepAside("ch"); d != 0 || turns {
		t.Fatalf("before any count: StepAside = %v, %v, want 0, false", d, turns)
	}
	if d, turns := h.Counted("ch", 3, 1); d != 4*time.Millisecond || !turns {
		t.Fatalf("Counted(3 subscribers, 1 relock) = %v, %v, want 4ms, true", d, turns)
	}
	if d, turns := h.StepAside("ch"); d != 4*time.Millisecond || !turns {
		t.Fatalf("after the count: StepAside = %v, %v, want 4ms, true", d, turns)
	}
	if d, turns := h.Counted("ch", 2, 2); d != time.Millisecond || turns {
		t.Fatalf("Counted(2 subscribers, both relock) = %v, %v, want 1ms, false", d, turns)
	}
	for _, c := range []struct {
		subscribers, relock int
		d                   time.Duration
		turns               bool
	}{{1, 0, 4 * time.Millisecond, true}, {2, 2, time.Millisecond, false}, {0, 0, 0, false}} {
		if d, turns := h.Counted("elsewhere", c.subscribers, c.relock); d != c.d || turns != c.turns {
			t.Errorf("Counted(%d, %d) on a channel not listened on = %v, %v, want %v, %v", c.subscribers, c.relock, d, turns, c.d, c.turns)
		}
	}
}

// On a semaphore's channel a message is a count of permits: while a client
// other than relock's listens, "1" wakes one waiter, in turn, as a lock's
// release does, not every waiter as a read unlock.
func TestSemaphoreCountOfOneWakesOne(t *testing.T) {
	h, mr, _ := newHub(t)
	ch := keys.SemaphoreChannel("sem")
	a, b := subscribe(t, h, ch), subscribe(t, h, ch)
	h.Counted(ch, 2, 1)
	da := waitAsync(a, time.Minute)
	untilSleeping(t, h, 1)
	db := waitAsync(b, time.Minute)
	untilSleeping(t, h, 2)
	mr.Publish(ch, "1")
	awaitWoken(t, da, "the first waiter")
	handled(t, h, mr)
	if n := h.Stats().Sleeping; n != 1 {
		t.Fatalf("a count of 1 handled, %d waiters asleep, want 1: the second", n)
	}
	mr.Publish(ch, "1")
	awaitWoken(t, db, "the second waiter")
}

// The share of a channel on which a Redisson client listens outlasts the
// channel's entry: a waiter that listens again within a second, after the
// last one left, finds the step where it was. Without a foreign
// listener, a new entry starts afresh.
func TestShareOutlastsTheEntryWhileRedissonListens(t *testing.T) {
	h, mr, _ := newHub(t)
	for _, c := range []struct {
		channel string
		relock  int
		want    time.Duration
	}{{"foreign", 1, 32 * time.Millisecond}, {"relock", 2, 0}} {
		sub := subscribe(t, h, c.channel)
		h.Counted(c.channel, 2, c.relock)
		s := h.existingShard(c.channel)
		s.mu.Lock()
		s.entries[c.channel].share.step = 32 * time.Millisecond
		s.mu.Unlock()
		sub.Close()
		untilUnsubscribed(t, h, mr, c.channel)
		sub = subscribe(t, h, c.channel)
		if d, _ := h.StepAside(c.channel); d != c.want {
			t.Errorf("%s: step after listening again %v, want %v", c.channel, d, c.want)
		}
		sub.Close()
		untilUnsubscribed(t, h, mr, c.channel)
	}
}

// A release script counts a channel's listeners at most every 10 ms for a
// client that listens there, and always for one that does not.
func TestCountDueEveryTenMilliseconds(t *testing.T) {
	h, _, _ := newHub(t)
	sub := subscribe(t, h, "ch")
	defer sub.Close()
	if !h.CountDue("ch") {
		t.Fatal("a channel never counted is not due")
	}
	h.Counted("ch", 2, 1)
	if h.CountDue("ch") {
		t.Fatal("a channel just counted is due again")
	}
	time.Sleep(11 * time.Millisecond) // the subject: the count's age
	if !h.CountDue("ch") {
		t.Fatal("a channel counted 11 ms ago is not due")
	}
	if !h.CountDue("elsewhere") {
		t.Fatal("a channel this client does not listen on is not due")
	}
}
