package main

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/relock-go/relock/rlock"
	"github.com/relock-go/relock/test/testkit"
)

// A rate limiter is found by inspect and list without --kind: its rate
// and the permits available now, as text and as JSON.
func TestInspectAndListRateLimiter(t *testing.T) {
	ctx := testkit.Ctx(t, 10*time.Second)
	c := fresh(t).client()
	l := c.NewRateLimiter("api:calls")
	if err := l.SetRate(ctx, rlock.Rate{Limit: 10, Interval: time.Minute, KeepAlive: time.Hour}); err != nil {
		t.Fatal(err)
	}
	if ok, err := l.AllowN(ctx, 4); !ok || err != nil {
		t.Fatalf("AllowN(4) = %v, %v", ok, err)
	}
	r := relock(t, "", "inspect", "api:calls")
	r.want(t, 0, []string{"kind       rate-limiter\n", "rate       10 per 1m0s, overall, kept 1h0m0s idle\n", "available  6\n"}, nil)
	t.Logf("relock inspect api:calls\n%s", r.stdout)

	r = relock(t, "", "inspect", "--json", "api:calls")
	var v lockView
	if err := json.Unmarshal([]byte(r.stdout), &v); err != nil {
		t.Fatalf("%v:\n%s", err, r.stdout)
	}
	if v.Kind != "rate-limiter" || v.Count == nil || *v.Count != 6 || v.Rate == nil || *v.Rate != (rateView{Limit: 10, IntervalMillis: 60000, KeepAliveMillis: 3600000}) || v.CountSet != nil {
		t.Fatalf("inspect --json = %s", r.stdout)
	}

	lock(t, c.NewMutex("api:lock"))
	r = relock(t, "", "list", "api:*")
	r.want(t, 0, []string{"api:lock   mutex"}, nil)
	t.Logf("relock list api:*\n%s", r.stdout)
	// The columns' widths follow the lock's TTL: compare the words.
	if i := strings.Index(r.stdout, "api:calls"); i < 0 || !slices.Equal(strings.Fields(strings.SplitN(r.stdout[i:], "\n", 2)[0]), []string{"api:calls", "rate-limiter", "-", "-", "-", "6"}) {
		t.Errorf("list's line of the limiter is not: api:calls rate-limiter - - - 6")
	}
}

// TestInspectRatePerClient shows every client's permits of a limiter per
// client, read from Redis, and not relock's own share, which it never
// uses; --kind rate-limiter reads a limiter and refuses anything else.
func TestInspectRatePerClient(t *testing.T) {
	s := fresh(t)
	ctx := testkit.Ctx(t, 10*time.Second)
	a, b := s.client(rlock.WithClientName("billing")), s.client()
	if err := a.NewRateLimiter("api:each").SetRate(ctx, rlock.Rate{Limit: 10, Interval: time.Minute, PerClient: true}); err != nil {
		t.Fatal(err)
	}
	relock(t, "", "inspect", "api:each").want(t, 0, []string{"rate  10 per 1m0s, per client\n", "clients: none has taken permits (each has 10 available)\n"}, nil)
	take(ctx, t, "api:each", map[*rlock.Client]int{a: 3, b: 4})
	testkit.Eventually(t, 5*time.Second, "the label", func() bool {
		info, err := a.Inspect(ctx, "api:each")
		return err == nil && len(info.RateClients) == 2 && slices.ContainsFunc(info.RateClients, func(c rlock.RateClient) bool { return c.Label != nil })
	})
	r := relock(t, "", "inspect", "--kind", "rate-limiter", "api:each")
	r.want(t, 0, []string{"clients (each has the rate; those whose keys are in Redis):\n"}, nil)
	t.Logf("relock inspect --kind rate-limiter api:each\n%s", r.stdout)
	if strings.Contains(r.stdout, "available  ") || strings.Contains(r.stdout, "10\n") {
		t.Errorf("inspect shows relock's own share of 10:\n%s", r.stdout)
	}
	for c, left := range map[*rlock.Client]string{a: "7", b: "6"} {
		label := "-"
		if c == a {
			label = "billing@"
		}
		i := strings.Index(r.stdout, c.ID())
		if i < 0 {
			t.Fatalf("no line of client %s", c.ID())
		}
		line, _, _ := strings.Cut(r.stdout[i:], "\n")
		if f := strings.Fields(line); !strings.Contains(line, label) || f[len(f)-1] != left {
			t.Errorf("line %q; want client %s's label %s and %s available", line, c.ID(), label, left)
		}
	}

	var v lockView
	r = relock(t, "", "inspect", "--json", "api:each")
	if err := json.Unmarshal([]byte(r.stdout), &v); err != nil {
		t.Fatalf("%v:\n%s", err, r.stdout)
	}
	got := map[string]int64{}
	for _, c := range v.Clients {
		got[c.Client] = c.Available
	}
	if v.Count != nil || len(got) != 2 || got[a.ID()] != 7 || got[b.ID()] != 6 {
		t.Errorf("inspect --json = %s; want no count, clients %s: 7 and %s: 6", r.stdout, a.ID(), b.ID())
	}

	lock(t, a.NewMutex("api:lock"))
	relock(t, "", "inspect", "--kind", "rate-limiter", "api:lock").want(t, 1, nil, []string{"rate limiter's config"})
	relock(t, "", "watch", "--kind", "rate-limiter", "--count", "0", "--for", "100ms", "api:each").want(t, 0, []string{"per client"}, nil)
}

// TestRatePerClientOnCluster inspects a limiter per client and lists it,
// one line, on a Redis Cluster, whose clients' keys are found on the
// master of the limiter's slot.
func TestRatePerClientOnCluster(t *testing.T) {
	cluster := sharedCluster(t)
	ctx := testkit.Ctx(t, 10*time.Second)
	s := server{t, cluster.Client(t)}
	a, b := s.client(), s.client()
	if err := a.NewRateLimiter("api:each").SetRate(ctx, rlock.Rate{Limit: 10, Interval: time.Minute, PerClient: true}); err != nil {
		t.Fatal(err)
	}
	take(ctx, t, "api:each", map[*rlock.Client]int{a: 3, b: 4})
	addrs := []string{"--cluster", "--addr", strings.Join(cluster.Addrs(), ",")}
	var v lockView
	r := runCmd(t, relockCmd(t, append([]string{"inspect", "--json", "api:each"}, addrs...)...), "")
	if err := json.Unmarshal([]byte(r.stdout), &v); err != nil || len(v.Clients) != 2 {
		t.Fatalf("inspect --json on the cluster = %s (%v); want 2 clients", r.stdout, err)
	}
	r = runCmd(t, relockCmd(t, append([]string{"list"}, addrs...)...), "")
	if r.want(t, 0, []string{"api:each  rate-limiter"}, nil); strings.Count(r.stdout, "\n") != 2 {
		t.Errorf("list on the cluster =\n%s\nwant the header and one line", r.stdout)
	}
}

// take has each Client take its number of permits of the rate limiter
// name.
func take(ctx context.Context, t *testing.T, name string, permits map[*rlock.Client]int) {
	t.Helper()
	for c, n := range permits {
		if ok, err := c.NewRateLimiter(name).AllowN(ctx, n); !ok || err != nil {
			t.Fatalf("AllowN(%d) of %s = %v, %v", n, name, ok, err)
		}
	}
}
