package rlock

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/relock-go/relock/internal/keys"
)

func TestElectionElectsInCampaignOrderWithGrowingTokens(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	const name = "el:order"
	// A fenced lock of the same name handed out tokens before.
	fenced := newClient(t, rdb).NewFencedMutex(name)
	var fencedToken int64
	for range 3 {
		tok, err := fenced.Lock(ctx)
		if err != nil {
			t.Fatal(err)
		}
		fencedToken = tok
		mustUnlock(t, fenced)
	}

	first := mustCampaign(t, newClient(t, rdb).NewElection(name), "c0")
	const n = 5
	var waiting []<-chan campaignResult
	for i := 1; i <= n; i++ {
		c, _ := fairClient(t)
		waiting = append(waiting, campaignAsync(ctx, c.NewElection(name), fmt.Sprintf("c%d", i)))
		awaitQueued(t, rdb, name, i)
	}
	if first.Token() <= fencedToken {
		t.Fatalf("first term's token %d not above the fenced lock's %d", first.Token(), fencedToken)
	}
	terms := []*Term{first}
	for _, ch := range waiting {
		prev := terms[len(terms)-1]
		mustResign(t, prev)
		next := awaitTerm(t, ch, 10*time.Second)
		if next.Token() <= prev.Token() {
			t.Fatalf("term %q token %d after term %q token %d: want it greater", next.Value(), next.Token(), prev.Value(), prev.Token())
		}
		terms = append(terms, next)
	}
	var order []string
	for _, term := range terms {
		order = append(order, term.Value())
	}
	if want := []string{"c0", "c1", "c2", "c3", "c4", "c5"}; !slices.Equal(order, want) {
		t.Fatalf("elected in order %v, want the campaign order %v", order, want)
	}
	mustResign(t, terms[n])
	if tok, err := fenced.Lock(ctx); err != nil || tok <= terms[n].Token() {
		t.Fatalf("fenced lock after the terms = %d, %v; want a token above the last term's %d", tok, err, terms[n].Token())
	}
	mustUnlock(t, fenced)
}

func TestElectionLeaderProclaimResign(t *testing.T) {
	rdb := newRedis(t)
	c := newClient(t, rdb)
	e := c.NewElection("el:leader")
	if _, ok := leaderNow(t, e); ok {
		t.Fatal("a leader before any campaign")
	}
	before := time.Now()
	term := mustCampaign(t, e, "10.0.0.1:80")
	l, ok := leaderNow(t, e)
	if !ok || l.Value != "10.0.0.1:80" || l.Token != term.Token() || l.Owner != term.Owner() || !l.Since.Equal(term.Since()) {
		t.Fatalf("Leader = %+v, %v; want the term %+v", l, ok, term.Leader())
	}
	if d := l.Since.Sub(before); d < -time.Second || d > 10*time.Second {
		t.Fatalf("Since %v is %v after the campaign began", l.Since, d)
	}
	if err := term.Proclaim(ctxT(t), "10.0.0.2:80"); err != nil {
		t.Fatal(err)
	}
	if l, _ := leaderNow(t, e); l.Value != "10.0.0.2:80" || l.Token != term.Token() || term.Value() != "10.0.0.2:80" {
		t.Fatalf("after Proclaim: Leader %+v, term value %q; want the new value, same token", l, term.Value())
	}
	mustResign(t, term)
	if closedWithin(term.Lost(), 0) {
		t.Fatal("Lost closed by Resign")
	}
	if _, ok := leaderNow(t, e); ok {
		t.Fatal("a leader after Resign")
	}
	for what, err := range map[string]error{"Resign": term.Resign(ctxT(t)), "Proclaim": term.Proclaim(ctxT(t), "x")} {
		if !errors.Is(err, ErrNotHeld) {
			t.Errorf("%s after Resign = %v, want ErrNotHeld", what, err)
		}
	}
	if got, want := logKinds(t, rdb, "el:leader"), []string{"elected:1", "proclaimed:1", "resigned:1"}; !slices.Equal(got, want) {
		t.Fatalf("log %v, want %v", got, want)
	}
	if n, _ := rdb.Exists(ctxT(t), "el:leader").Result(); n != 0 {
		t.Fatal("lock left after Resign")
	}
}

func TestElectionCampaignCancelledLeavesNothingQueued(t *testing.T) {
	rdb := newRedis(t)
	const name = "el:cancel"
	leader := mustCampaign(t, newClient(t, rdb).NewElection(name), "L")
	c, _ := fairClient(t)
	ctx, cancel := context.WithCancel(ctxT(t))
	ch := campaignAsync(ctx, c.NewElection(name), "C")
	awaitQueued(t, rdb, name, 1)
	cancel()
	r := <-ch
	if !errors.Is(r.err, context.Canceled) || r.t != nil {
		t.Fatalf("cancelled Campaign = %v, %v; want context.Canceled", r.t, r.err)
	}
	for _, key := range []string{keys.Queue(name), keys.Timeout(name), keys.FairWaiters(name)} {
		if n, err := rdb.Exists(ctxT(t), key).Result(); err != nil || n != 0 {
			t.Errorf("%s left after the campaign was cancelled (%v)", key, err)
		}
	}
	mustResign(t, leader)
	if _, ok := leaderNow(t, c.NewElection(name)); ok {
		t.Fatal("the cancelled candidate was elected")
	}
	if n, _ := rdb.Exists(ctxT(t), name).Result(); n != 0 {
		t.Fatal("lock held after the leader resigned with nobody campaigning")
	}
}

func TestElectionResignRacesNewCampaigns(t *testing.T) {
	rdb := newRedis(t)
	const name = "el:race"
	a := newClient(t, rdb).NewElection(name)
	cb, _ := fairClient(t)
	b := cb.NewElection(name)
	ctx := ctxT(t)
	var last int64
	for i := range 20 {
		term := mustCampaign(t, a, "a")
		if term.Token() <= last {
			t.Fatalf("round %d: token %d after %d", i, term.Token(), last)
		}
		ch := campaignAsync(ctx, b, "b")
		resigned := make(chan error, 1)
		go func() { resigned <- term.Resign(ctx) }()
		next := awaitTerm(t, ch, 10*time.Second)
		if err := <-resigned; err != nil {
			t.Fatalf("round %d: Resign: %v", i, err)
		}
		if next.Token() <= term.Token() {
			t.Fatalf("round %d: b's token %d not above a's %d", i, next.Token(), term.Token())
		}
		if l, ok := leaderNow(t, a); !ok || l.Token != next.Token() || l.Value != "b" {
			t.Fatalf("round %d: Leader = %+v, %v; want b's term %d", i, l, ok, next.Token())
		}
		mustResign(t, next)
		last = next.Token()
	}
}

func TestElectionOneCampaignAtATimePerElection(t *testing.T) {
	rdb := newRedis(t)
	e := newClient(t, rdb).NewElection("el:handle")
	ctx := ctxT(t)
	first := mustCampaign(t, e, "1")
	second := campaignAsync(ctx, e, "2")
	notElected(t, second, 200*time.Millisecond, "the Election's first term lasts")
	if q := queueOf(t, rdb, "el:handle"); len(q) != 0 {
		t.Fatalf("second campaign queued in Redis %v: want it waiting in the process", q)
	}
	mustResign(t, first)
	term := awaitTerm(t, second, 5*time.Second)
	if term.Value() != "2" || term.Token() <= first.Token() {
		t.Fatalf("second term %q token %d", term.Value(), term.Token())
	}
	mustResign(t, term)
}

func TestElectionBadInput(t *testing.T) {
	c := newClient(t, newRedis(t))
	for _, e := range []*Election{c.NewElection(""), c.NewElection("a{b"), c.NewElection("ok", WithElectionHistory(0)), c.NewElection("ok", nil)} {
		if _, err := e.Campaign(ctxT(t), "v"); err == nil {
			t.Errorf("Campaign of %q: no error", e.Name())
		}
		if _, err := e.Leader(ctxT(t)); err == nil || errors.Is(err, ErrNoLeader) {
			t.Errorf("Leader of %q = %v, want the Election's error", e.Name(), err)
		}
		if _, open := <-e.Observe(ctxT(t)); open {
			t.Errorf("Observe of %q delivered", e.Name())
		}
	}
}
