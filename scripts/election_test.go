package scripts

import (
	"context"
	"testing"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/internal/keys"
	"github.com/relock-go/relock/test/testkit"
)

var (
	el     = NewElection("e")
	writes = Writes{Publish: Publish, Keep: 3}
)

func TestElectTakesATokenOncePerTermAndEndsTheLapsedOne(t *testing.T) {
	mr, rdb := testkit.Miniredis(t)
	ctx := context.Background()
	if _, ok, err := el.Elect(ctx, rdb, "a:1", "A", writes); ok || err != nil {
		t.Fatalf("Elect without the lock = %v, %v; want false", ok, err)
	}
	mr.HSet("e", "a:1", "1")
	mr.Set(keys.Token("e"), "41") // a fenced lock's tokens came first
	first, ok, err := el.Elect(ctx, rdb, "a:1", "A", writes)
	if !ok || err != nil || first.Token != 42 || first.Seq != 1 {
		t.Fatalf("Elect = %+v, %v, %v; want token 42, entry 1", first, ok, err)
	}
	again, ok, err := el.Elect(ctx, rdb, "a:1", "A", writes)
	if !ok || err != nil || again != first {
		t.Fatalf("resent Elect = %+v, %v, %v; want the same term %+v", again, ok, err, first)
	}

	// a:1's lock went without a word; b:1 holds it now.
	mr.Del("e")
	mr.HSet("e", "b:1", "1")
	second, ok, err := el.Elect(ctx, rdb, "b:1", "B", writes)
	if !ok || err != nil || second.Token != 43 || second.Seq != 3 {
		t.Fatalf("Elect of the next = %+v, %v, %v; want token 43 after an entry that ends a:1's term", second, ok, err)
	}
	s, err := el.State(ctx, rdb, 0, false, Writes{})
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, c := range s.After {
		kinds = append(kinds, c.Kind+":"+c.Owner)
	}
	if got := len(kinds); got != 3 || kinds[0] != "elected:a:1" || kinds[1] != "ended:a:1" || kinds[2] != "elected:b:1" {
		t.Fatalf("log = %v; want a:1 elected and ended, then b:1 elected", kinds)
	}
	if !s.Held || s.Last.Owner != "b:1" || s.Last.Value != "B" || !s.Last.Since.Equal(second.Since) {
		t.Fatalf("state = %+v; want b:1 leading with B", s)
	}
}

// elected returns a miniredis whose election "e" has the leader a:1, with
// the value A, a client of it, and the term.
func elected(t *testing.T) (*miniredis.Miniredis, *redis.Client, Term) {
	t.Helper()
	mr, rdb := testkit.Miniredis(t)
	mr.HSet("e", "a:1", "1")
	term, _, err := el.Elect(context.Background(), rdb, "a:1", "A", writes)
	if err != nil {
		t.Fatal(err)
	}
	return mr, rdb, term
}

func TestProclaimAndEndOnlyForTheTermTheLogShows(t *testing.T) {
	mr, rdb, term := elected(t)
	ctx := context.Background()
	if n, err := el.Proclaim(ctx, rdb, "a:1", term.Token+1, "X", writes); n != TermOver || err != nil {
		t.Fatalf("Proclaim with another token = %d, %v; want TermOver", n, err)
	}
	for range 2 { // the second is a resend: not recorded again
		if n, err := el.Proclaim(ctx, rdb, "a:1", term.Token, "A2", writes); n != ProclaimedValue || err != nil {
			t.Fatalf("Proclaim = %d, %v; want ProclaimedValue", n, err)
		}
	}
	if ok, err := el.End(ctx, rdb, "a:1", term.Token, Resigned, writes); !ok || err != nil {
		t.Fatalf("End = %v, %v; want true", ok, err)
	}
	if ok, err := el.End(ctx, rdb, "a:1", term.Token, Resigned, writes); ok || err != nil {
		t.Fatalf("End again = %v, %v; want false: the term is over", ok, err)
	}
	if n, err := el.Proclaim(ctx, rdb, "a:1", term.Token, "A3", writes); n != TermOver || err != nil {
		t.Fatalf("Proclaim after the end = %d, %v; want TermOver", n, err)
	}
	mr.Del("e")
	if n, err := el.Proclaim(ctx, rdb, "a:1", term.Token, "A3", writes); n != LockGone || err != nil {
		t.Fatalf("Proclaim without the lock = %d, %v; want LockGone", n, err)
	}
	s, err := el.State(ctx, rdb, 1, false, Writes{})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.After) != 2 || s.After[0].Kind != Proclaimed || s.After[0].Value != "A2" || s.After[1].Kind != Resigned || s.Held {
		t.Fatalf("state after entry 1 = %+v; want proclaimed A2, then resigned, no leader", s)
	}
}

func TestStateRepairsALapsedTermAndTheLogKeepsItsLength(t *testing.T) {
	mr, rdb, term := elected(t)
	ctx := context.Background()
	for _, v := range []string{"B", "C", "D"} {
		if _, err := el.Proclaim(ctx, rdb, "a:1", term.Token, v, writes); err != nil {
			t.Fatal(err)
		}
	}
	mr.Del("e") // expired
	s, err := el.State(ctx, rdb, 4, false, Writes{})
	if err != nil || s.Held || s.Last.Kind != Proclaimed || len(s.After) != 0 {
		t.Fatalf("State without repair = %+v, %v; want the last entry, not held, nothing after", s, err)
	}
	s, err = el.State(ctx, rdb, 1, true, writes)
	if err != nil {
		t.Fatal(err)
	}
	if s.Last.Kind != Ended || s.Last.Seq != 5 || s.Last.Value != "D" {
		t.Fatalf("repaired state = %+v; want entry 5 ending the term", s.Last)
	}
	// The log keeps 3 entries: 3, 4 and 5; entry 2 was trimmed.
	if len(s.After) != 3 || s.After[0].Seq != 3 {
		t.Fatalf("entries after 1 = %+v; want 3, 4, 5 (2 trimmed)", s.After)
	}
}
