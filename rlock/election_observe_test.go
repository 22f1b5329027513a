package rlock

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/relock-go/relock/scripts"
)

// nextLeader returns the observer's next delivery, failing the test
// after d or when the channel closes.
func nextLeader(t *testing.T, ch <-chan Leader, d time.Duration) Leader {
	t.Helper()
	select {
	case l, ok := <-ch:
		if !ok {
			t.Fatal("Observe's channel closed")
		}
		return l
	case <-time.After(d):
		t.Fatalf("no delivery within %v", d)
	}
	return Leader{}
}

// leaderLabel is a delivery as the tests compare them: "value/token", or "none".
func leaderLabel(l Leader) string {
	if l.Token == 0 {
		return "none"
	}
	return fmt.Sprintf("%s/%d", l.Value, l.Token)
}

func TestObserveDeliversEveryChangeInOrder(t *testing.T) {
	rdb := newRedis(t)
	const name = "el:observe"
	obsClient, _ := fairClient(t)
	ctx := ctxT(t)
	ch := obsClient.NewElection(name).Observe(ctx)
	if l := nextLeader(t, ch, 5*time.Second); l != (Leader{}) {
		t.Fatalf("first delivery %+v, want the zero Leader: nobody leads", l)
	}

	// A burst: three candidates of two Clients, each leading in turn,
	// proclaiming twice, then resigning; the observer reads after it all.
	var want []string
	c1, c2 := newClient(t, rdb), newClient(t, rdb)
	for round := range 3 {
		for i, c := range []*Client{c1, c2, c1} {
			term := mustCampaign(t, c.NewElection(name), fmt.Sprintf("r%dc%d", round, i))
			want = append(want, leaderLabel(term.Leader()))
			for k := range 2 {
				v := fmt.Sprintf("r%dc%dv%d", round, i, k)
				if err := term.Proclaim(ctx, v); err != nil {
					t.Fatal(err)
				}
				want = append(want, fmt.Sprintf("%s/%d", v, term.Token()))
			}
			mustResign(t, term)
			want = append(want, "none")
		}
	}
	for i, w := range want {
		if got := leaderLabel(nextLeader(t, ch, 5*time.Second)); got != w {
			t.Fatalf("delivery %d = %s, want %s (all: %v)", i, got, w, want)
		}
	}
	select {
	case l := <-ch:
		t.Fatalf("extra delivery %+v", l)
	case <-time.After(100 * time.Millisecond):
	}
}

func TestObserveMakesUpForALostAnnouncement(t *testing.T) {
	rdb := newRedis(t)
	const name = "el:lost-news"
	const lease = 2 * time.Second // short, yet renewed in time on a loaded machine
	c := newClient(t, rdb, WithWatchdogTimeout(lease))
	e := c.NewElection(name)
	term := mustCampaign(t, e, "A")
	ctx := ctxT(t)
	ch := e.Observe(ctx)
	if l := nextLeader(t, ch, 5*time.Second); leaderLabel(l) != leaderLabel(term.Leader()) {
		t.Fatalf("first delivery %+v, want the leader", l)
	}
	// A change whose announcement is lost.
	if n, err := scripts.NewElection(name).Proclaim(ctx, rdb, term.Owner(), term.Token(), "B", silent(DefaultElectionHistory)); n != scripts.ProclaimedValue || err != nil {
		t.Fatalf("silent Proclaim = %d, %v", n, err)
	}
	// The observer reads again when the leader's lease, as it last read
	// it, could have run out: within the lease.
	if l := nextLeader(t, ch, lease+2*time.Second); l.Value != "B" || l.Token != term.Token() {
		t.Fatalf("delivery %+v, want the silent change to B", l)
	}
	// A later announced change is delivered after it, in order.
	if err := term.Proclaim(ctx, "C"); err != nil {
		t.Fatal(err)
	}
	if l := nextLeader(t, ch, 5*time.Second); l.Value != "C" {
		t.Fatalf("delivery %+v, want C", l)
	}
	mustResign(t, term)
}

func TestObserveSummarisesChangesTrimmedBeforeRead(t *testing.T) {
	rdb := newRedis(t)
	const name = "el:trimmed"
	c := newClient(t, rdb)
	term := mustCampaign(t, c.NewElection(name, WithElectionHistory(2)), "v0")
	ctx := ctxT(t)
	ch := c.NewElection(name).Observe(ctx)
	nextLeader(t, ch, 5*time.Second)
	// Four changes the observer does not hear of (silent), then one it
	// does: it reads once, after all five, and the log keeps two.
	el := scripts.NewElection(name)
	for i := 1; i <= 4; i++ {
		if _, err := el.Proclaim(ctx, rdb, term.Owner(), term.Token(), fmt.Sprintf("v%d", i), silent(2)); err != nil {
			t.Fatal(err)
		}
	}
	if err := term.Proclaim(ctx, "v5"); err != nil {
		t.Fatal(err)
	}
	// Changes 2 to 4 were trimmed before it read them: it delivers where
	// the election is now, not a part of what it missed.
	if got, want := leaderLabel(nextLeader(t, ch, 5*time.Second)), fmt.Sprintf("v5/%d", term.Token()); got != want {
		t.Fatalf("delivery %s, want the current %s", got, want)
	}
	select {
	case l := <-ch:
		t.Fatalf("extra delivery %+v", l)
	case <-time.After(100 * time.Millisecond):
	}
	mustResign(t, term)
}

// silent is how a test makes a change whose announcement is lost: the
// script "publishes" with EXISTS, which reaches nobody.
func silent(keep int) scripts.Writes { return scripts.Writes{Publish: "exists", Keep: keep} }

func TestObserveEndsWithItsContextAndWithTheClient(t *testing.T) {
	rdb := newRedis(t)
	c, _ := fairClient(t)
	e := c.NewElection("el:end")
	ctx, cancel := context.WithCancel(ctxT(t))
	ch := e.Observe(ctx)
	nextLeader(t, ch, 5*time.Second)
	if got := c.Elections(); len(got) != 1 || got[0].Observers != 1 {
		t.Fatalf("Elections = %+v, want one observer", got)
	}
	cancel()
	if _, open := <-ch; open {
		t.Fatal("delivery after ctx ended")
	}
	eventually(t, 5*time.Second, "the observer gone", func() bool { return len(c.Elections()) == 0 })

	ch = e.Observe(ctxT(t))
	nextLeader(t, ch, 5*time.Second)
	_ = c.Close()
	if _, open := <-ch; open {
		t.Fatal("delivery after Close")
	}
	if _, open := <-e.Observe(ctxT(t)); open {
		t.Fatal("Observe of a closed Client delivered")
	}
	_ = rdb
}
