package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/relock-go/relock/internal/keys"
	"github.com/relock-go/relock/rlock"
	"github.com/relock-go/relock/test/testkit"
)

// TestLeaderShowsTheLeaderAndCandidates prints an election led by a named
// Client with a candidate waiting, as text and JSON, and inspect shows
// its leader too.
func TestLeaderShowsTheLeaderAndCandidates(t *testing.T) {
	s := fresh(t)
	ctx := testkit.Ctx(t, 10*time.Second)
	leader := s.client(rlock.WithClientName("scheduler"))
	term, err := leader.NewElection("jobs:nightly").Campaign(ctx, "host-a:8080")
	if err != nil {
		t.Fatal(err)
	}
	candidate := s.client().NewElection("jobs:nightly")
	cctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		_, err := candidate.Campaign(cctx, "host-b:8080")
		done <- err
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	testkit.Eventually(t, 5*time.Second, "the candidate queued", func() bool {
		n, err := s.rdb.LLen(ctx, keys.Queue("jobs:nightly")).Result()
		return err == nil && n == 1
	})
	testkit.Eventually(t, 5*time.Second, "the label", func() bool {
		info, err := leader.Inspect(ctx, "jobs:nightly")
		return err == nil && len(info.Holders) == 1 && info.Holders[0].Label != nil
	})

	r := relock(t, "", "leader", "jobs:nightly")
	r.want(t, 0, []string{
		"election  jobs:nightly\n", "leader    \"host-a:8080\"\n", fmt.Sprintf("token     %d\n", term.Token()),
		"owner     " + term.Owner() + "\n", "label     scheduler@", "candidates (next first):", "relock",
	}, nil)

	r = relock(t, "", "leader", "--json", "jobs:nightly")
	r.want(t, 0, nil, nil)
	var ev electionView
	if err := json.Unmarshal([]byte(r.stdout), &ev); err != nil {
		t.Fatalf("%v:\n%s", err, r.stdout)
	}
	if l := ev.Leader; l == nil || l.Value != "host-a:8080" || l.Token != term.Token() || l.Client != leader.ID() || l.Label == nil || len(ev.Candidates) != 1 {
		t.Fatalf("leader --json = %+v (leader %+v)", ev, ev.Leader)
	}

	r = relock(t, "", "inspect", "jobs:nightly")
	r.want(t, 0, []string{"kind           election\n", fmt.Sprintf("leader         \"host-a:8080\" (token %d)\n", term.Token())}, nil)

	if err := term.Resign(ctx); err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, 5*time.Second, "the candidate elected", func() bool {
		_, err := candidate.Leader(ctx)
		return err == nil
	})
	relock(t, "", "leader", "--json", "nobody").want(t, 0, []string{`"leader": null`, `"candidates": []`}, nil)
	relock(t, "", "leader", "nobody").want(t, 0, []string{"leader    none (Redis holds nothing of this name: nobody campaigned yet, or the name is wrong)\n", "candidates: none"}, nil)
	relock(t, "", "leader", "--count", "1", "x").want(t, 2, nil, []string{"--count and --for go with --watch"})
}

// TestLeaderOfANameThatIsNoElection says what the name holds instead, and
// fails, watching or not; an election that has no leader now is "none".
func TestLeaderOfANameThatIsNoElection(t *testing.T) {
	s := fresh(t)
	ctx := testkit.Ctx(t, 10*time.Second)
	c := s.client()
	lock(t, c.NewFairMutex("fair:demo"))
	if _, err := c.NewSemaphore("pool").TrySetPermits(ctx, 2); err != nil {
		t.Fatal(err)
	}
	// (A fair lock nobody waits for shows as a lock: it has no queue.)
	relock(t, "", "leader", "fair:demo").want(t, 1, nil, []string{`relock leader: "fair:demo" is no leader election: it is a lock (relock inspect shows it)` + "\n"})
	relock(t, "", "leader", "--watch", "--for", "1s", "fair:demo").want(t, 1, nil, []string{`"fair:demo" is no leader election: it is a lock`})
	relock(t, "", "leader", "--json", "pool").want(t, 1, nil, []string{`"pool" is no leader election: it is a count (a semaphore's, a latch's or any counter)`})
	term, err := c.NewElection("jobs:ended").Campaign(ctx, "host-a")
	if err != nil {
		t.Fatal(err)
	}
	if err := term.Resign(ctx); err != nil {
		t.Fatal(err)
	}
	relock(t, "", "leader", "jobs:ended").want(t, 0, []string{"leader    none\n"}, nil)
}

// TestLeaderWatchFollowsTheChanges follows an election through a term, a
// proclamation and a resignation, as text and JSON.
func TestLeaderWatchFollowsTheChanges(t *testing.T) {
	s := fresh(t)
	ctx := testkit.Ctx(t, 10*time.Second)
	jsonCmd := relockCmd(t, "leader", "--watch", "--json", "--count", "3", "--addr", srv.Addr, "jobs:watched")
	textCmd := relockCmd(t, "leader", "jobs:watched", "--watch", "--addr", srv.Addr, "--count=3")
	var jsonOut, textOut strings.Builder
	jsonLines, textLines := start(t, jsonCmd), start(t, textCmd)
	change := func(want string) leaderChange {
		t.Helper()
		var c leaderChange
		line := nextLine(t, jsonLines, `"leader":`, &jsonOut)
		if err := json.Unmarshal([]byte(line), &c); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		nextLine(t, textLines, want, &textOut)
		return c
	}
	if c := change("  no leader"); c.Leader != nil {
		t.Fatalf("first line %+v, want no leader", c)
	}
	term, err := s.client().NewElection("jobs:watched").Campaign(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	if c := change(`leader "a"  token 1`); c.Leader == nil || c.Leader.Token != term.Token() || c.Leader.Owner != term.Owner() {
		t.Fatalf("second line %+v, want the term", c.Leader)
	}
	if err := term.Proclaim(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	if c := change(`leader "b"  token 1`); c.Leader == nil || c.Leader.Value != "b" {
		t.Fatalf("third line %+v, want b", c.Leader)
	}
	if err := term.Resign(ctx); err != nil {
		t.Fatal(err)
	}
	if c := change("  no leader"); c.Leader != nil {
		t.Fatalf("fourth line %+v, want no leader", c.Leader)
	}
	// --count 3: the watches end after the third change.
	drain(jsonLines, &jsonOut)
	drain(textLines, &textOut)
	if err := jsonCmd.Wait(); err != nil {
		t.Fatalf("leader --watch --json: %v\n%s", err, jsonOut.String())
	}
	if err := textCmd.Wait(); err != nil {
		t.Fatalf("leader --watch: %v\n%s", err, textOut.String())
	}
	t.Logf("relock leader --watch jobs:watched\n%s", textOut.String())
}
