package debuglocks_test

import (
	"context"
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/relock-go/relock/rlock"
	"github.com/relock-go/relock/test/testkit"
)

// A permit-expirable semaphore's page shows its available permits and
// leased permits, and a waiter for them among this Client's waiters, in
// HTML and JSON.
func TestPageShowsPermitSemaphore(t *testing.T) {
	c, _ := emptyServer(t)
	ctx := testkit.Ctx(t, within)
	const name = "jobs:pes"
	s := c.NewPermitExpirableSemaphore(name)
	if _, err := s.TrySetPermits(ctx, 2); err != nil {
		t.Fatal(err)
	}
	leased, err := s.Acquire(ctx, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	forever, err := s.Acquire(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		_, err := s.Acquire(wctx, time.Minute)
		done <- err
	}()
	t.Cleanup(func() { cancel(); <-done })
	testkit.Eventually(t, 10*time.Second, "the waiter in Activity", func() bool {
		for _, w := range c.Activity().Waiters {
			if w.Name == name {
				return true
			}
		}
		return false
	})

	ts := serve(t, c)
	doc := getPage(t, ts.URL+mountPath+"?name="+url.QueryEscape(name), htmlType)
	if kind := text(element(doc, "dd", "kind")); kind != "permit-semaphore" {
		t.Errorf("kind %q, want permit-semaphore", kind)
	}
	if n := text(element(doc, "dd", "count")); n != "0" {
		t.Errorf("available permits %q, want 0", n)
	}
	permits := rows(t, doc, "permits", "permit")
	if len(permits) != 2 || permits[0].cells["id"] != leased.ID || !strings.HasPrefix(permits[0].cells["expires-in"], "in ") ||
		permits[1].cells["id"] != forever.ID || permits[1].cells["expires-in"] != "never" {
		t.Errorf("permit rows %+v; want %s expiring, then %s never", permits, leased.ID, forever.ID)
	}
	waiters := rows(t, doc, "waiters", "waiter")
	if len(waiters) != 1 || waiters[0].cells["kind"] != "permit-semaphore" || waiters[0].cells["permits"] != "1" || waiters[0].cells["owner"] != "–" {
		t.Errorf("waiter rows %+v; want one permit-semaphore waiter for 1 permit", waiters)
	}

	var p struct {
		Inspect struct {
			Kind    string `json:"kind"`
			Count   *int64 `json:"count"`
			Permits []struct {
				ID        string    `json:"id"`
				Expiry    time.Time `json:"expiry"`
				ExpiresIn *int64    `json:"expires_in_ms"`
			} `json:"permits"`
		} `json:"inspect"`
	}
	body := getPage(t, ts.URL+mountPath+"?format=json&name="+url.QueryEscape(name), "application/json")
	if err := json.Unmarshal([]byte(body), &p); err != nil {
		t.Fatal(err)
	}
	in := p.Inspect
	if in.Kind != "permit-semaphore" || in.Count == nil || *in.Count != 0 || len(in.Permits) != 2 ||
		in.Permits[0].ExpiresIn == nil || *in.Permits[0].ExpiresIn <= 0 || in.Permits[1].ExpiresIn != nil || !in.Permits[1].Expiry.IsZero() {
		t.Errorf("JSON inspect = %s", body)
	}
}

// A semaphore's count is a "count" until ?kind says whose.
func TestPageKindOfCount(t *testing.T) {
	c, _ := emptyServer(t)
	if _, err := c.NewSemaphore("jobs:sem").TrySetPermits(testkit.Ctx(t, within), 4); err != nil {
		t.Fatal(err)
	}
	ts := serve(t, c)
	doc := getPage(t, ts.URL+mountPath+"?name=jobs:sem", htmlType)
	if kind := text(element(doc, "dd", "kind")); kind != string(rlock.KindCount) || element(doc, "p", "count-kind") == "" {
		t.Errorf("kind %q; want count, with the note on kinds", kind)
	}
	doc = getPage(t, ts.URL+mountPath+"?name=jobs:sem&kind=semaphore", htmlType)
	if kind, n := text(element(doc, "dd", "kind")), text(element(doc, "dd", "count")); kind != "semaphore" || n != "4" {
		t.Errorf("kind %q, count %q; want semaphore, 4", kind, n)
	}
	if !strings.Contains(doc, `<option value="semaphore" selected>`) {
		t.Error("the form does not keep the kind asked")
	}
	doc = getPage(t, ts.URL+mountPath+"?name=jobs:sem&kind=bogus", htmlType)
	if e := text(element(doc, "div", "inspect-error")); !strings.Contains(e, "invalid kind") {
		t.Errorf("error box %q; want the invalid kind", e)
	}
}
