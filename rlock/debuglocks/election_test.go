package debuglocks_test

import (
	"context"
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/relock-go/relock/test/testkit"
	"github.com/relock-go/relock/test/testkit/lockkit"
)

// electionJSON is an election as the JSON page lists it.
type electionJSON struct {
	Name       string       `json:"name"`
	Role       string       `json:"role"`
	Terms      []leaderJSON `json:"terms"`
	Campaigns  int          `json:"campaigns"`
	Observers  int          `json:"observers"`
	Leader     *leaderJSON  `json:"leader"`
	Candidates int          `json:"candidates"`
}

type leaderJSON struct {
	Value    string    `json:"value"`
	Token    int64     `json:"token"`
	Owner    string    `json:"owner"`
	Since    time.Time `json:"since"`
	LeaderMS int64     `json:"leader_ms"`
	Local    bool      `json:"local"`
}

func TestElections(t *testing.T) {
	c, rdb := emptyServer(t)
	other := lockkit.NewClient(t, rdb)
	ctx := testkit.Ctx(t, within)
	term, err := c.NewElection("jobs:nightly").Campaign(ctx, "host-a")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = term.Resign(context.Background()) })
	waitIn(t, func(ctx context.Context) error {
		_, err := other.NewElection("jobs:nightly").Campaign(ctx, "host-b")
		return err
	})
	testkit.Eventually(t, 10*time.Second, "the candidate queued", func() bool {
		info, err := c.Inspect(ctx, "jobs:nightly")
		return err == nil && len(info.Queue) == 1
	})
	observed := c.NewElection("jobs:other").Observe(ctx)
	<-observed
	ts := serve(t, c)

	_, raw := getJSON(t, ts, url.Values{})
	var es []electionJSON
	if err := json.Unmarshal(raw["elections"], &es); err != nil {
		t.Fatalf("elections: %v: %s", err, raw["elections"])
	}
	if len(es) != 2 || es[0].Name != "jobs:nightly" || es[1].Name != "jobs:other" {
		t.Fatalf("elections %+v, want jobs:nightly and jobs:other", es)
	}
	nightly, obs := es[0], es[1]
	if nightly.Role != "leader" || len(nightly.Terms) != 1 || nightly.Terms[0].Token != term.Token() || nightly.Candidates != 1 {
		t.Errorf("jobs:nightly %+v, want this Client leading with one candidate", nightly)
	}
	if l := nightly.Leader; l == nil || l.Value != "host-a" || l.Owner != term.Owner() || !l.Local || l.LeaderMS < 0 {
		t.Errorf("jobs:nightly's leader %+v", l)
	}
	if obs.Role != "observer" || obs.Observers != 1 || obs.Leader != nil {
		t.Errorf("jobs:other %+v, want an observer, no leader", obs)
	}

	doc := getPage(t, ts.URL+mountPath, htmlType)
	rs := rows(t, doc, "elections", "election")
	if len(rs) != 2 || rs[0].cells["role"] != "leader" || !strings.HasPrefix(rs[0].cells["leader"], "host-a") || rs[0].cells["candidates"] != "1" {
		t.Fatalf("elections table %+v", rs)
	}
	doc = getPage(t, ts.URL+mountPath+"?name=jobs:nightly", htmlType)
	if dd := text(element(doc, "dd", "leader")); !strings.HasPrefix(dd, "host-a") || !strings.Contains(dd, term.Owner()) {
		t.Fatalf("dd#leader %q, want the leader's value and owner", dd)
	}
}
