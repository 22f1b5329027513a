package debuglocks_test

import (
	"context"
	"encoding/json"
	"net/url"
	"testing"
	"time"

	"github.com/relock-go/relock/rlock"
	"github.com/relock-go/relock/test/testkit"
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
