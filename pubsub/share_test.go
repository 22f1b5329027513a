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
	want := []time.Duration{maxYield, 2 * maxYield / 3, maxYield / 3, 0, 0}
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
