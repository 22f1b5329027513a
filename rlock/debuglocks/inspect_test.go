package debuglocks_test

import (
	"encoding/json"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/relock-go/relock/rlock"
	"github.com/relock-go/relock/test/testkit"
)

func TestInspectFairQueue(t *testing.T) {
	c, rdb := emptyServer(t)
	const name = "fair:1"
	holder, queued := fairQueue(t, c, rdb, name)
	want := []string{queued[0].Owner(), queued[1].Owner()}
	ts := serve(t, c)

	doc := getPage(t, ts.URL+mountPath+"?name="+url.QueryEscape(name), htmlType)
	checkQueue(t, doc, name, holder.Owner(), want)
	checkActivity(t, doc, []string{holder.Owner()}, want)

	p, _ := getJSON(t, ts, url.Values{"name": {name}})
	in := p.Inspect
	if in == nil {
		t.Fatal("no inspect in the JSON page")
	}
	if in.Name != name || in.Error != "" || in.Kind != string(rlock.KindFairMutex) || !in.Held || in.TTL <= 0 {
		t.Errorf("inspect %+v", in)
	}
	if len(in.Holders) != 1 || in.Holders[0].Owner != holder.Owner() || !in.Holders[0].Local || in.Holders[0].Client != c.ID() {
		t.Errorf("holders %+v", in.Holders)
	}
	var got []string
	for i, q := range in.Queue {
		got = append(got, q.Owner)
		if q.Position != i+1 || !q.Relock || !q.Local || q.Deadline.IsZero() || q.DeadlineIn <= 0 {
			t.Errorf("queue entry %d: %+v", i, q)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("queue %q, want %q", got, want)
	}
	if len(in.Local.Holds) != 1 || len(in.Local.Waiters) != 2 {
		t.Errorf("local: %d holds and %d waiters, want 1 and 2", len(in.Local.Holds), len(in.Local.Waiters))
	}
}

func TestInspectError(t *testing.T) {
	c, rdb := emptyServer(t)
	if err := rdb.Set(testkit.Ctx(t, within), "plain", "a string", 0).Err(); err != nil {
		t.Fatal(err)
	}
	ts := serve(t, c)

	doc := getPage(t, ts.URL+mountPath+"?name=plain", htmlType)
	sec := element(doc, "section", "inspect")
	msg := text(element(sec, "div", "inspect-error"))
	if !strings.Contains(msg, rlock.ErrWrongType.Error()) {
		t.Errorf("error box %q, want it to tell %q\n%s", msg, rlock.ErrWrongType, doc)
	}
	if element(sec, "dl", "lock") != "" {
		t.Errorf("a lock shown beside the error")
	}

	p, raw := getJSON(t, ts, url.Values{"name": {"plain"}})
	if p.Inspect == nil || p.Inspect.Name != "plain" || !strings.Contains(p.Inspect.Error, rlock.ErrWrongType.Error()) {
		t.Errorf("inspect %s, want the wrong type error", raw["inspect"])
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(raw["inspect"], &members); err != nil || len(members) != 2 {
		t.Errorf("inspect %s, want only its name and error", raw["inspect"])
	}
}

func TestEmptyNameIgnored(t *testing.T) {
	c, _ := emptyServer(t)
	ts := serve(t, c)
	doc := getPage(t, ts.URL+mountPath+"?name=", htmlType)
	if element(doc, "section", "inspect") != "" {
		t.Errorf("an inspect section for an empty name")
	}
	checkActivity(t, doc, nil, nil)
	if _, raw := getJSON(t, ts, url.Values{"name": {""}}); raw["inspect"] != nil {
		t.Errorf("inspect %s for an empty name", raw["inspect"])
	}
}
