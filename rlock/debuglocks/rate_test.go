package debuglocks_test

import (
	"context"
	"encoding/json"
	"maps"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/relock-go/relock/rlock"
	"github.com/relock-go/relock/test/testkit"
	"github.com/relock-go/relock/test/testkit/lockkit"
)

// A rate limiter's page shows its rate and the permits available now, and
// a waiter for permits among this Client's waiters, in HTML and JSON.
func TestPageShowsRateLimiter(t *testing.T) {
	c, _ := emptyServer(t)
	ctx := testkit.Ctx(t, within)
	const name = "api:calls"
	l := c.NewRateLimiter(name)
	if err := l.SetRate(ctx, rlock.Rate{Limit: 5, Interval: time.Minute}); err != nil {
		t.Fatal(err)
	}
	if ok, err := l.AllowN(ctx, 5); !ok || err != nil {
		t.Fatalf("AllowN(5) = %v, %v", ok, err)
	}
	// No deadline: one before the permits come back, a minute on, would
	// end the wait at once.
	wctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- l.WaitN(wctx, 2) }()
	t.Cleanup(func() { cancel(); <-done })
	testkit.Eventually(t, 10*time.Second, "the waiter in Activity", func() bool { return len(c.Activity().Waiters) == 1 })

	ts := serve(t, c)
	doc := getPage(t, ts.URL+mountPath+"?name="+url.QueryEscape(name), htmlType)
	if kind, n, r := text(element(doc, "dd", "kind")), text(element(doc, "dd", "count")), text(element(doc, "dd", "rate")); kind != "rate-limiter" || n != "0" || r != "5 per 1m0s, overall" {
		t.Errorf("kind %q, available %q, rate %q; want rate-limiter, 0, 5 per 1m0s, overall", kind, n, r)
	}
	waiters := rows(t, doc, "waiters", "waiter")
	if len(waiters) != 1 || waiters[0].cells["kind"] != "rate-limiter" || waiters[0].cells["permits"] != "2" {
		t.Errorf("waiter rows %+v; want one rate-limiter waiter for 2 permits", waiters)
	}

	var p struct {
		Inspect struct {
			Kind  string `json:"kind"`
			Count *int64 `json:"count"`
			Rate  *struct {
				Limit     int   `json:"limit"`
				Interval  int64 `json:"interval_ms"`
				PerClient bool  `json:"per_client"`
			} `json:"rate"`
		} `json:"inspect"`
	}
	body := getPage(t, ts.URL+mountPath+"?format=json&name="+url.QueryEscape(name), "application/json")
	if err := json.Unmarshal([]byte(body), &p); err != nil {
		t.Fatal(err)
	}
	if in := p.Inspect; in.Kind != "rate-limiter" || in.Count == nil || *in.Count != 0 || in.Rate == nil || in.Rate.Limit != 5 || in.Rate.Interval != 60000 || in.Rate.PerClient {
		t.Errorf("JSON inspect = %s", body)
	}
}

// A rate limiter per client's page shows every client that took permits,
// this Client's row marked, in HTML and JSON; the kind selector offers
// the rate limiter, which refuses a lock's key.
func TestPageShowsRateClients(t *testing.T) {
	const name = "api:each"
	c, other := rateClients(t, name)

	ts := serve(t, c)
	doc := getPage(t, ts.URL+mountPath+"?name="+url.QueryEscape(name), htmlType)
	got := map[string]string{}
	for _, r := range rows(t, doc, "rate-clients", "rate-client") {
		got[r.cells["client"]] = r.cells["available"]
		if local := slices.Contains(r.classes, "local"); local != (r.cells["client"] == c.ID()) {
			t.Errorf("row of %s: local %v", r.cells["client"], local)
		}
	}
	if want := map[string]string{c.ID(): "7", other.ID(): "6"}; !maps.Equal(got, want) {
		t.Errorf("rate-clients rows %v, want %v", got, want)
	}
	if !strings.Contains(element(doc, "select", "kind-select"), `<option value="rate-limiter"`) {
		t.Errorf("the kind selector offers no rate-limiter:\n%s", element(doc, "select", "kind-select"))
	}

	type client struct {
		Client    string `json:"client"`
		Available int64  `json:"available"`
		Local     bool   `json:"local"`
	}
	var p struct {
		Inspect struct {
			Clients []client `json:"clients"`
		} `json:"inspect"`
	}
	body := getPage(t, ts.URL+mountPath+"?format=json&name="+url.QueryEscape(name), "application/json")
	if err := json.Unmarshal([]byte(body), &p); err != nil {
		t.Fatal(err)
	}
	if cs := p.Inspect.Clients; len(cs) != 2 || !slices.Contains(cs, client{Client: c.ID(), Available: 7, Local: true}) {
		t.Errorf("JSON clients = %s", body)
	}

	holdAndWait(t, c, "a:lock")
	doc = getPage(t, ts.URL+mountPath+"?kind=rate-limiter&name=a:lock", htmlType)
	if e := text(element(doc, "div", "inspect-error")); !strings.Contains(e, "rate limiter's config") {
		t.Errorf("inspect-error %q, want a lock refused as a rate limiter's config", e)
	}
}

// rateClients makes the rate limiter name of 10 a minute per client, of
// which a Client (of the page) took 3 permits and another 4, and returns
// both.
func rateClients(t *testing.T, name string) (c, other *rlock.Client) {
	t.Helper()
	c, rdb := emptyServer(t)
	other = lockkit.NewClient(t, rdb)
	ctx := testkit.Ctx(t, within)
	if err := c.NewRateLimiter(name).SetRate(ctx, rlock.Rate{Limit: 10, Interval: time.Minute, PerClient: true}); err != nil {
		t.Fatal(err)
	}
	for cl, n := range map[*rlock.Client]int{c: 3, other: 4} {
		if ok, err := cl.NewRateLimiter(name).AllowN(ctx, n); !ok || err != nil {
			t.Fatalf("AllowN(%d) = %v, %v", n, ok, err)
		}
	}
	return c, other
}
