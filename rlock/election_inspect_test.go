package rlock

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"
)

func TestInspectShowsTheLeaderAndTheCandidates(t *testing.T) {
	rdb := newRedis(t)
	const name = "el:inspect"
	lc := newClient(t, rdb, WithClientName("leader"))
	term := mustCampaign(t, lc.NewElection(name), "10.0.0.1")
	cc, _ := fairClient(t, WithClientName("candidate"))
	ch := campaignAsync(ctxT(t), cc.NewElection(name), "10.0.0.2")
	awaitQueued(t, rdb, name, 1)
	observed := cc.NewElection(name).Observe(ctxT(t))
	nextLeader(t, observed, 5*time.Second)

	info, err := newClient(t, rdb).Inspect(ctxT(t), name)
	if err != nil {
		t.Fatal(err)
	}
	if info.Kind != KindElection || !info.Held || info.Leader == nil {
		t.Fatalf("Inspect = %+v; want a held election with a leader", info)
	}
	if l := *info.Leader; l.Value != "10.0.0.1" || l.Token != term.Token() || l.Owner != term.Owner() {
		t.Fatalf("Leader %+v, want the term %+v", l, term.Leader())
	}
	if len(info.Holders) != 1 || info.Holders[0].Owner != term.Owner() || info.Holders[0].Label == nil || info.Holders[0].Label.Name != "leader" {
		t.Fatalf("Holders %+v, want the leader's owner, labelled", info.Holders)
	}
	if len(info.Queue) != 1 || !info.Queue[0].Relock || info.Queue[0].Label == nil || info.Queue[0].Label.Name != "candidate" {
		t.Fatalf("Queue %+v, want the candidate", info.Queue)
	}
	// The candidate's own channel and the observer's subscription.
	if info.Subscribers < 2 || info.Token != term.Token() {
		t.Fatalf("Subscribers %d, Token %d; want the candidate and the observer, token %d", info.Subscribers, info.Token, term.Token())
	}

	got := cc.Elections()
	if len(got) != 1 || got[0].Name != name || got[0].Campaigns != 1 || got[0].Observers != 1 || len(got[0].Terms) != 0 {
		t.Fatalf("candidate's Elections = %+v; want one campaign and one observer", got)
	}
	got = lc.Elections()
	if len(got) != 1 || len(got[0].Terms) != 1 || got[0].Terms[0].Token != term.Token() || got[0].Campaigns != 0 {
		t.Fatalf("leader's Elections = %+v; want its term", got)
	}
	if a := lc.Activity(); len(a.Holds) != 1 || a.Holds[0].Kind != KindElection {
		t.Fatalf("leader's Activity %+v; want its hold of kind election", a)
	}

	mustResign(t, term)
	next := awaitTerm(t, ch, 5*time.Second)
	if len(lc.Elections()) != 0 {
		t.Fatalf("leader's Elections after Resign = %+v, want none", lc.Elections())
	}
	mustResign(t, next)
	info, err = newClient(t, rdb).Inspect(ctxT(t), name)
	if err != nil || info.Kind != KindElection || info.Held || info.Leader != nil {
		t.Fatalf("Inspect after the terms = %+v, %v; want an election without a leader", info, err)
	}
	if ok, err := newClient(t, rdb).ForceUnlock(ctxT(t), name); ok || err != nil {
		t.Fatalf("ForceUnlock of a free election = %v, %v", ok, err)
	}
}

func TestTermContextEndsWithTheTerm(t *testing.T) {
	rdb := newRedis(t)
	var resigned, proclaimed Event
	c := newClient(t, rdb, WithObserver(ObserverFunc(func(e Event) {
		switch e.Type {
		case EventResigned:
			resigned = e
		case EventProclaimed:
			proclaimed = e
		}
	})))
	term := mustCampaign(t, c.NewElection("el:ctx"), "v")
	work, cancel := term.Context(ctxT(t))
	defer cancel()
	if err := term.Proclaim(ctxT(t), "w"); err != nil {
		t.Fatal(err)
	}
	mustResign(t, term)
	select {
	case <-work.Done():
	default:
		t.Fatal("term's Context not cancelled by Resign")
	}
	if cause := context.Cause(work); !errors.Is(cause, ErrNotHeld) {
		t.Fatalf("cause %v, want ErrNotHeld", cause)
	}
	after, cancel2 := term.Context(context.Background())
	defer cancel2()
	if after.Err() == nil {
		t.Fatal("Context of an ended term not cancelled")
	}
	if resigned.Token != term.Token() || resigned.Held <= 0 || proclaimed.Token != term.Token() || proclaimed.Name != "el:ctx" {
		t.Fatalf("events: resigned %+v, proclaimed %+v", resigned, proclaimed)
	}
}

func TestElectionUnderRestrictedACLUser(t *testing.T) {
	admin := newRedis(t)
	user := aclUser(t, admin)
	c1 := newClient(t, aclClient(t, user))
	c2 := newClient(t, aclClient(t, user))
	const name = "lock:acl:election"
	ctx := ctxT(t)
	observed := c2.NewElection(name).Observe(ctx)
	nextLeader(t, observed, 5*time.Second)
	term := mustCampaign(t, c1.NewElection(name), "one")
	ch := campaignAsync(ctx, c2.NewElection(name), "two")
	if err := term.Proclaim(ctx, "uno"); err != nil {
		t.Fatal(err)
	}
	if info, err := c2.Inspect(ctx, name); err != nil || info.Leader == nil || info.Leader.Value != "uno" {
		t.Fatalf("Inspect = %+v, %v", info, err)
	}
	mustResign(t, term)
	mustResign(t, awaitTerm(t, ch, 5*time.Second))
	var got []string
	for len(got) < 5 {
		got = append(got, leaderLabel(nextLeader(t, observed, 5*time.Second)))
	}
	if want := "[one/1 uno/1 none two/2 none]"; fmt.Sprint(got) != want {
		t.Fatalf("observed %v, want %s", got, want)
	}
	if denials := aclDenials(t, admin); len(denials) > 0 {
		t.Fatalf("ACL refused %+v", denials[0])
	}
}
