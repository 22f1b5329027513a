package debuglocks_test

import (
	"encoding/json"
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/relock-go/relock/rlock"
	"github.com/relock-go/relock/rlock/debuglocks"
)

const htmlType = "text/html; charset=utf-8"

// pageJSON is the JSON page as documented.
type pageJSON struct {
	Client   string       `json:"client"`
	Time     time.Time    `json:"time"`
	Activity activityJSON `json:"activity"`
	Inspect  *struct {
		Name        string `json:"name"`
		Error       string `json:"error"`
		Kind        string `json:"kind"`
		Held        bool   `json:"held"`
		Mode        string `json:"mode"`
		TTL         int64  `json:"ttl_ms"`
		Subscribers int    `json:"subscribers"`
		Token       int64  `json:"token"`
		Holders     []struct {
			Owner  string `json:"owner"`
			Client string `json:"client"`
			Count  int    `json:"count"`
			Local  bool   `json:"local"`
		} `json:"holders"`
		Queue []struct {
			Position   int       `json:"position"`
			Owner      string    `json:"owner"`
			Deadline   time.Time `json:"deadline"`
			DeadlineIn int64     `json:"deadline_in_ms"`
			Relock     bool      `json:"relock"`
			Local      bool      `json:"local"`
		} `json:"queue"`
		Local activityJSON `json:"local"`
	} `json:"inspect"`
}

type activityJSON struct {
	Holds []struct {
		Name        string    `json:"name"`
		Kind        string    `json:"kind"`
		Owner       string    `json:"owner"`
		Count       int       `json:"count"`
		Since       time.Time `json:"since"`
		HeldMS      int64     `json:"held_ms"`
		LeaseMS     int64     `json:"lease_ms"`
		Watchdog    bool      `json:"watchdog"`
		LeaseEnd    time.Time `json:"lease_end"`
		LeaseLeftMS int64     `json:"lease_left_ms"`
	} `json:"holds"`
	Waiters []struct {
		Name      string    `json:"name"`
		Kind      string    `json:"kind"`
		Owner     string    `json:"owner"`
		Since     time.Time `json:"since"`
		WaitingMS int64     `json:"waiting_ms"`
		Attempts  int       `json:"attempts"`
	} `json:"waiters"`
}

// getJSON GETs the JSON page with query and decodes it; raw is the top
// level object's members, undecoded.
func getJSON(t *testing.T, ts *httptest.Server, query url.Values) (p pageJSON, raw map[string]json.RawMessage) {
	t.Helper()
	query.Set("format", "json")
	body := getPage(t, ts.URL+mountPath+"?"+query.Encode(), "application/json")
	if err := json.Unmarshal([]byte(body), &p); err != nil {
		t.Fatalf("decoding the JSON page: %v\n%s", err, body)
	}
	if err := json.Unmarshal([]byte(body), &raw); err != nil {
		t.Fatalf("decoding the JSON page: %v\n%s", err, body)
	}
	return p, raw
}

// checkActivity checks that doc's holds table lists exactly the holders
// and its waiters table exactly the waiters, by owner id.
func checkActivity(t *testing.T, doc string, holders, waiters []string) {
	t.Helper()
	got := owners(rows(t, doc, "holds", "hold"))
	if !sameSet(got, holders) {
		t.Errorf("holds table owners %q, want %q", got, holders)
	}
	got = owners(rows(t, doc, "waiters", "waiter"))
	if !sameSet(got, waiters) {
		t.Errorf("waiters table owners %q, want %q", got, waiters)
	}
}

// checkQueue checks doc's inspect section: the lock is held by holder and
// the queue is queued, in order, all relock owners of this Client.
func checkQueue(t *testing.T, doc, name, holder string, queued []string) {
	t.Helper()
	sec := element(doc, "section", "inspect")
	if sec == "" {
		t.Fatalf("no section#inspect in the page:\n%s", doc)
	}
	if got := text(element(sec, "code", "inspect-name")); got != name {
		t.Errorf("inspected name %q, want %q", got, name)
	}
	if e := element(sec, "div", "inspect-error"); e != "" {
		t.Fatalf("inspect error: %s", text(e))
	}
	if got := text(element(sec, "dd", "kind")); got != string(rlock.KindFairMutex) {
		t.Errorf("kind %q, want %q", got, rlock.KindFairMutex)
	}
	if got := text(element(sec, "dd", "held")); got != "yes" {
		t.Errorf("held %q, want yes", got)
	}
	if got := owners(rows(t, sec, "holders", "holder")); !slices.Equal(got, []string{holder}) {
		t.Errorf("holders %q, want %q", got, holder)
	}
	q := rows(t, sec, "queue", "queued")
	if got := owners(q); !slices.Equal(got, queued) {
		t.Fatalf("queue %q, want %q in order", got, queued)
	}
	for i, r := range q {
		if got := r.cells["position"]; got != strconv.Itoa(i+1) {
			t.Errorf("queue row %d: position %q", i, got)
		}
		if got := r.cells["library"]; got != "relock" {
			t.Errorf("queue row %d: library %q, want relock", i, got)
		}
		if !slices.Contains(r.classes, "local") {
			t.Errorf("queue row %d: classes %q, want local among them", i, r.classes)
		}
		if !strings.HasPrefix(r.cells["deadline-in"], "in ") {
			t.Errorf("queue row %d: deadline %q, want in the future", i, r.cells["deadline-in"])
		}
	}
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

func TestPageShowsActivity(t *testing.T) {
	c, _ := newClient(t)
	holder, waiter := holdAndWait(t, c, "orders:42")
	ts := serve(t, c)

	doc := getPage(t, ts.URL+mountPath, htmlType)
	if got := text(element(doc, "code", "client")); got != c.ID() {
		t.Errorf("client %q, want %q", got, c.ID())
	}
	checkActivity(t, doc, []string{holder.Owner()}, []string{waiter.Owner()})
	h := rows(t, doc, "holds", "hold")[0].cells
	for class, want := range map[string]string{"name": "orders:42", "kind": "mutex", "count": "1", "lease": "30s"} {
		if h[class] != want {
			t.Errorf("hold's %s %q, want %q", class, h[class], want)
		}
	}
	// Times are relative to the one "as of" time of the page.
	if h["renewed"] == "fixed" || !strings.HasPrefix(h["lease-left"], "in ") || h["held-for"] == "" {
		t.Errorf("hold's renewed %q, lease left %q, held for %q: want a watchdog's lease ending in the future", h["renewed"], h["lease-left"], h["held-for"])
	}
	year := strconv.Itoa(time.Now().Year()) + "-"
	if n := strings.Count(regexp.MustCompile(`<[^>]*>`).ReplaceAllString(doc, ""), year); n != 1 {
		t.Errorf("the page shows a date %d times, want once (as of)", n)
	}
	if w := rows(t, doc, "waiters", "waiter")[0].cells; w["name"] != "orders:42" || w["kind"] != "mutex" {
		t.Errorf("waiter row %q", w)
	}
	if element(doc, "section", "inspect") != "" {
		t.Errorf("an inspect section without a name")
	}
	if element(doc, "form", "inspect-form") == "" || !strings.Contains(doc, `name="name"`) {
		t.Errorf("no inspect form with a name field")
	}
}

func TestJSON(t *testing.T) {
	c, _ := newClient(t)
	holder, waiter := holdAndWait(t, c, "orders:42")
	ts := serve(t, c)

	p, raw := getJSON(t, ts, url.Values{})
	if p.Client != c.ID() || p.Time.IsZero() {
		t.Errorf("client %q at %v, want %q at a time", p.Client, p.Time, c.ID())
	}
	if _, ok := raw["inspect"]; ok {
		t.Errorf("inspect without a name: %s", raw["inspect"])
	}
	if len(p.Activity.Holds) != 1 || len(p.Activity.Waiters) != 1 {
		t.Fatalf("%d holds and %d waiters, want 1 and 1", len(p.Activity.Holds), len(p.Activity.Waiters))
	}
	h, w := p.Activity.Holds[0], p.Activity.Waiters[0]
	if h.Name != "orders:42" || h.Owner != holder.Owner() || h.Kind != "mutex" || h.Count != 1 || !h.Watchdog {
		t.Errorf("hold %+v", h)
	}
	if h.LeaseMS != (30*time.Second).Milliseconds() || h.Since.IsZero() || h.HeldMS < 0 ||
		h.LeaseEnd.IsZero() || h.LeaseLeftMS <= 0 {
		t.Errorf("hold's times %+v", h)
	}
	if w.Name != "orders:42" || w.Owner != waiter.Owner() || w.Kind != "mutex" || w.Since.IsZero() || w.Attempts < 1 {
		t.Errorf("waiter %+v", w)
	}
}

func TestInspectFairQueue(t *testing.T) {
	c, rdb := newClient(t)
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
	c, rdb := newClient(t)
	if err := rdb.Set(ctxT(t), "plain", "a string", 0).Err(); err != nil {
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
	c, _ := newClient(t)
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

func TestEscaping(t *testing.T) {
	c, _ := newClient(t)
	const name = `<b id="evil">x</b>&'y'`
	holder, _ := holdAndWait(t, c, name)
	ts := serve(t, c)

	doc := getPage(t, ts.URL+mountPath+"?name="+url.QueryEscape(name), htmlType)
	if strings.Contains(doc, `<b id="evil">`) {
		t.Fatalf("the lock name is in the page unescaped:\n%s", doc)
	}
	h := rows(t, doc, "holds", "hold")
	if len(h) != 1 || h[0].cells["name"] != name || h[0].cells["owner"] != holder.Owner() {
		t.Errorf("holds %+v, want the lock %q", h, name)
	}
	if got := text(element(doc, "code", "inspect-name")); got != name {
		t.Errorf("inspected name %q, want %q", got, name)
	}
	// The name links to its inspection.
	m := regexp.MustCompile(`<td class="name"><a href="([^"]*)">`).FindStringSubmatch(element(doc, "table", "holds"))
	if m == nil {
		t.Fatalf("no link in the hold's name cell:\n%s", doc)
	}
	if u, err := url.Parse(html.UnescapeString(m[1])); err != nil || u.Query().Get("name") != name {
		t.Errorf("the hold's link %q does not name %q", m[1], name)
	}
}

func TestMethods(t *testing.T) {
	c, _ := newClient(t)
	ts := serve(t, c)
	for _, method := range []string{http.MethodPost, http.MethodPut, http.MethodDelete, http.MethodPatch} {
		resp, _ := request(t, method, ts.URL+mountPath)
		if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "GET, HEAD" {
			t.Errorf("%s: %s, Allow %q; want 405, Allow GET, HEAD", method, resp.Status, resp.Header.Get("Allow"))
		}
	}
	resp, body := request(t, http.MethodHead, ts.URL+mountPath)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != htmlType || body != "" {
		t.Errorf("HEAD: %s, %q, body %q", resp.Status, resp.Header.Get("Content-Type"), body)
	}
	if resp, _ := request(t, http.MethodGet, ts.URL+mountPath+"?format=xml"); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("format=xml: %s, want 400", resp.Status)
	}
}

// TestAnyPath serves the page under a subtree and at a path unknown to it.
func TestAnyPath(t *testing.T) {
	c, _ := newClient(t)
	holder, waiter := holdAndWait(t, c, "orders:42")
	rec := httptest.NewRecorder()
	debuglocks.Handler(c).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/admin/locks/anything", nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("status %d", rec.Code)
	}
	checkActivity(t, rec.Body.String(), []string{holder.Owner()}, []string{waiter.Owner()})
}
