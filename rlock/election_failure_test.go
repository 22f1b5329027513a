package rlock

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"
)

func TestElectionCloseEndsTheTermAndElectsTheNext(t *testing.T) {
	rdb := newRedis(t)
	const name = "el:close"
	lc, _ := fairClient(t)
	term := mustCampaign(t, lc.NewElection(name), "L")
	work, cancel := term.Context(ctxT(t))
	defer cancel()
	ch := campaignAsync(ctxT(t), newClient(t, rdb).NewElection(name), "N")
	awaitQueued(t, rdb, name, 1)

	closed := time.Now()
	if err := lc.Close(); err != nil {
		t.Fatal(err)
	}
	if !closedWithin(term.Lost(), 0) {
		t.Fatal("Lost open after Close returned")
	}
	if cause := context.Cause(work); !errors.Is(cause, ErrClosed) {
		t.Fatalf("term's Context cause %v, want ErrClosed", cause)
	}
	// Released, not left to expire: the next is elected at once, not
	// after the 30s lease.
	next := awaitTerm(t, ch, 5*time.Second)
	if d := time.Since(closed); d > 5*time.Second {
		t.Fatalf("next elected %v after Close", d)
	}
	want := []string{"elected:1", "ended:1", "elected:2"}
	if got := logKinds(t, rdb, name); !slices.Equal(got, want) {
		t.Fatalf("log %v, want %v", got, want)
	}
	if err := term.Resign(ctxT(t)); !errors.Is(err, ErrClosed) {
		t.Fatalf("Resign after Close = %v, want ErrClosed", err)
	}
	mustResign(t, next)
}

func TestElectionTermLostWhenItsLockIsDeleted(t *testing.T) {
	rdb := newRedis(t)
	const name = "el:forced"
	evs := make(chan Event, 256)
	c := newClient(t, rdb, WithWatchdogTimeout(time.Second), WithObserver(ObserverFunc(func(e Event) {
		if e.Kind == KindElection {
			evs <- e
		}
	})))
	term := mustCampaign(t, c.NewElection(name), "L")
	other, _ := fairClient(t)
	ch := campaignAsync(ctxT(t), other.NewElection(name), "N")
	awaitQueued(t, rdb, name, 1)
	if _, err := other.ForceUnlock(ctxT(t), name); err != nil {
		t.Fatal(err)
	}
	next := awaitTerm(t, ch, 5*time.Second)
	// The next renewal (a third of the lease) finds the lock gone.
	if !closedWithin(term.Lost(), 3*time.Second) {
		t.Fatal("Lost still open after the lock was deleted")
	}
	if err := term.Proclaim(ctxT(t), "x"); !errors.Is(err, ErrNotHeld) {
		t.Fatalf("Proclaim of the lost term = %v, want ErrNotHeld", err)
	}
	if err := term.Resign(ctxT(t)); !errors.Is(err, ErrNotHeld) {
		t.Fatalf("Resign of the lost term = %v, want ErrNotHeld", err)
	}
	if l, ok := leaderNow(t, c.NewElection(name)); !ok || l.Token != next.Token() || l.Value != "N" {
		t.Fatalf("Leader = %+v, %v; want N's term", l, ok)
	}
	want := []string{"elected:1", "ended:1", "elected:2"}
	if got := logKinds(t, rdb, name); !slices.Equal(got, want) {
		t.Fatalf("log %v, want %v", got, want)
	}
	mustResign(t, next)

	// The loss is reported once Lost has closed: wait for it.
	var elected, lost bool
	timeout := time.After(5 * time.Second)
	for !elected || !lost {
		select {
		case e := <-evs:
			switch e.Type {
			case EventElected:
				elected = elected || e.Token == term.Token() && e.Owner == term.Owner()
			case EventTermLost:
				lost = lost || e.Token == term.Token() && errors.Is(e.Err, ErrLost) && e.Held > 0
			}
		case <-timeout:
			t.Fatalf("events: elected %v, term lost %v; want both, of token %d", elected, lost, term.Token())
		}
	}
}

func TestElectionLeaderOfAnExpiredTermIsNone(t *testing.T) {
	rdb := newRedis(t)
	const name = "el:expired"
	lc, _ := fairClient(t)
	e := lc.NewElection(name)
	term := mustCampaign(t, e, "L")
	// The leader's process dies: its lock goes without a word.
	if err := rdb.Del(ctxT(t), name).Err(); err != nil {
		t.Fatal(err)
	}
	observer := newClient(t, rdb).NewElection(name)
	if l, ok := leaderNow(t, observer); ok {
		t.Fatalf("Leader = %+v of a term whose lock is gone", l)
	}
	info, err := newClient(t, rdb).Inspect(ctxT(t), name)
	if err != nil || info.Leader != nil || info.Kind != KindElection {
		t.Fatalf("Inspect = %+v, %v; want an election without a leader", info, err)
	}
	// An observer records the end it finds.
	ch := observer.Observe(ctxT(t))
	if l := nextLeader(t, ch, 5*time.Second); l != (Leader{}) {
		t.Fatalf("observer's first delivery %+v, want none", l)
	}
	want := []string{"elected:1", "ended:1"}
	if got := logKinds(t, rdb, name); !slices.Equal(got, want) {
		t.Fatalf("log %v, want %v", got, want)
	}
	_ = term
}

// A term's Context and Lost find the term lost as they are asked once its
// lock's loss moment has passed, before the timer watching the lease
// fires, as when a paused process resumes; the test moves the moment
// into the past, as a pause would.
func TestTermLossSeenBeforeTheLeaseTimerFires(t *testing.T) {
	rdb := newRedis(t)
	for _, ask := range []string{"context", "lost"} {
		term := mustCampaign(t, newClient(t, rdb).NewElection("el:paused:"+ask), "L")
		tctx, cancel := term.Context(ctxT(t))
		defer cancel()
		h := term.m.currentHold()
		h.mu.Lock()
		h.deadline = time.Now().Add(-time.Second)
		h.mu.Unlock()
		switch ask {
		case "context":
			if err := tctx.Err(); err == nil || context.Cause(tctx) != ErrLost {
				t.Errorf("the term's Context past its loss moment: Err %v, cause %v; want ErrLost", err, context.Cause(tctx))
			}
		case "lost":
			select {
			case <-term.Lost():
			default:
				t.Error("the term's Lost open past its loss moment")
			}
		}
	}
}
