package pubsub

import (
	"testing"
	"time"
)

// The steps docs/semantics.md promises: a relock Client steps aside a
// millisecond for other relock Clients; while Redisson's listen, the step
// starts at 4 ms (a Redisson thread takes about 2.5 ms to wake and retry),
// doubles up to 64 ms, and halves, not below 4 ms. The tests state them
// here rather than read share.go's constants, so that a changed constant
// fails them.
const (
	wantRelockStep = time.Millisecond
	wantSlowStep   = 4 * time.Millisecond
	wantMaxStep    = 64 * time.Millisecond
)

// A client that won the last release steps aside the longest, and one
// that has not won for as many releases as there are peers not at all.
func TestShareYieldsByHowRecentlyTheClientWon(t *testing.T) {
	s := share{peers: 4}
	s.won()
	want := []time.Duration{wantRelockStep, 2 * wantRelockStep / 3, wantRelockStep / 3, 0, 0}
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

// While a client other than relock's listens, the step starts at 4 ms,
// doubles while this client wins the releases it stepped aside for (the
// others came too late), up to 64 ms, and halves when another client takes
// one, down to 4 ms. Among relock Clients only it stays a millisecond; a
// client alone on the channel does not step aside.
func TestShareStepAdaptsToSlowPeers(t *testing.T) {
	s := share{}
	s.counted(2, 1)
	s.won()
	want := []time.Duration{wantSlowStep, 2 * wantSlowStep, 4 * wantSlowStep, 8 * wantSlowStep, wantMaxStep, wantMaxStep}
	for i, w := range want {
		if d := s.released(); d != w {
			t.Fatalf("release %d won after stepping aside: delay %v, want %v", i+1, d, w)
		}
		s.won()
	}
	if !s.slow() {
		t.Fatal("a foreign subscriber does not count as slow")
	}
	s.lost()
	if d := s.others(); d != wantMaxStep/2 {
		t.Fatalf("after another client took the lock the step is %v, want %v", d, wantMaxStep/2)
	}
	for range 10 {
		s.lost()
	}
	if d := s.others(); d != wantSlowStep {
		t.Fatalf("step %v after many losses, want %v", d, wantSlowStep)
	}
	s.counted(3, 0)
	for range 3 {
		if d := s.released(); d > wantRelockStep {
			t.Fatalf("among relock Clients only the step is %v, want at most %v", d, wantRelockStep)
		}
		s.won()
	}
	if s.slow() || s.others() != wantRelockStep {
		t.Fatalf("among relock Clients only: slow %v, step %v", s.slow(), s.others())
	}
	s.counted(1, 0)
	if d := s.others(); d != 0 {
		t.Fatalf("a client alone on the channel steps aside %v, want 0", d)
	}
}
