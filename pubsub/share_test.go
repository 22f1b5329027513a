package pubsub

import (
	"testing"
	"time"
)

// A client that won the last release steps aside the longest, and one
// that has not won for as many releases as there are peers not at all.
func TestShareYieldsByHowRecentlyTheClientWon(t *testing.T) {
	s := share{peers: 4}
	s.won()
	want := []time.Duration{relockStep, 2 * relockStep / 3, relockStep / 3, 0, 0}
	for i, w := range want {
		if d := s.released(); d != w {
			t.Fatalf("release %d after a win: delay %v, want %v", i+1, d, w)
		}
	}
	alone := share{peers: 1}
	alone.won()
	if d := alone.released(); d != 0 {
		t.Fatalf("a client with no peers waits %v, want 0", d)
	}
}

// Clients that all contend take the lock in turn, although the order of
// delivery favours the first subscriber at every tie.
func TestShareGivesContendingClientsEqualTurns(t *testing.T) {
	const clients, releases = 4, 400
	shares := make([]share, clients)
	for i := range shares {
		shares[i].peers = clients
	}
	wins := make([]int, clients)
	for range releases {
		winner, best := -1, time.Duration(0)
		for i := range shares { // in the order of delivery
			if d := shares[i].released(); winner < 0 || d < best {
				winner, best = i, d
			}
		}
		shares[winner].won()
		wins[winner]++
	}
	for i, n := range wins {
		if n < releases/clients-1 || n > releases/clients+1 {
			t.Fatalf("wins per client %v: client %d is off an even share", wins, i)
		}
	}
}

// While a client other than relock's listens, the step starts at
// slowStep, grows while this client wins the releases it stepped aside for
// (the others came too late), up to maxStep, and shrinks when another
// client takes one, down to slowStep. The others count as taking their
// turns (slow) until the step reaches maxStep, and again once one of them
// took the lock. Among relock Clients only it stays relockStep; a client
// alone on the channel does not step aside.
func TestShareStepAdaptsToSlowPeers(t *testing.T) {
	s := share{}
	s.counted(2, 1)
	if !s.slow() {
		t.Fatal("a foreign subscriber does not count as slow")
	}
	s.won()
	want := []time.Duration{slowStep, 2 * slowStep, 4 * slowStep, 8 * slowStep, maxStep, maxStep}
	for i, w := range want {
		if d := s.released(); d != w {
			t.Fatalf("release %d won after stepping aside: delay %v, want %v", i+1, d, w)
		}
		s.won()
	}
	if s.slow() {
		t.Fatal("a foreign subscriber that came too late at the longest step still counts as taking its turns")
	}
	s.lost()
	if d := s.others(); d != maxStep/2 || !s.slow() {
		t.Fatalf("after another client took the lock the step is %v (slow %v), want %v (slow)", d, s.slow(), maxStep/2)
	}
	for range 10 {
		s.lost()
	}
	if d := s.others(); d != slowStep {
		t.Fatalf("step %v after many losses, want %v", d, slowStep)
	}
	s.counted(3, 0)
	for range 3 {
		if d := s.released(); d > relockStep {
			t.Fatalf("among relock Clients only the step is %v, want at most %v", d, relockStep)
		}
		s.won()
	}
	if s.slow() || s.others() != relockStep {
		t.Fatalf("among relock Clients only: slow %v, step %v", s.slow(), s.others())
	}
	s.counted(1, 0)
	if d := s.others(); d != 0 {
		t.Fatalf("a client alone on the channel steps aside %v, want 0", d)
	}
}

// A release script's count sets the share of a channel this client
// listens on at once; for one it does not listen on, Counted answers as a
// fresh share with those counts would.
func TestCountedSetsTheShare(t *testing.T) {
	h, _, _ := newHub(t)
	sub := subscribe(t, h, "ch")
	defer sub.Close()
	if d, slow := h.StepAside("ch"); d != 0 || slow {
		t.Fatalf("before any count: StepAside = %v, %v, want 0, false", d, slow)
	}
	if d, slow := h.Counted("ch", 3, 1); d != slowStep || !slow {
		t.Fatalf("Counted(3 subscribers, 1 relock) = %v, %v, want %v, true", d, slow, slowStep)
	}
	if d, slow := h.StepAside("ch"); d != slowStep || !slow {
		t.Fatalf("after the count: StepAside = %v, %v, want %v, true", d, slow, slowStep)
	}
	if d, slow := h.Counted("ch", 2, 2); d != relockStep || slow {
		t.Fatalf("Counted(2 subscribers, both relock) = %v, %v, want %v, false", d, slow, relockStep)
	}
	for _, c := range []struct {
		subscribers, relock int
		d                   time.Duration
		slow                bool
	}{{1, 0, slowStep, true}, {2, 2, relockStep, false}, {0, 0, 0, false}} {
		if d, slow := h.Counted("elsewhere", c.subscribers, c.relock); d != c.d || slow != c.slow {
			t.Errorf("Counted(%d, %d) on a channel not listened on = %v, %v, want %v, %v", c.subscribers, c.relock, d, slow, c.d, c.slow)
		}
	}
}
