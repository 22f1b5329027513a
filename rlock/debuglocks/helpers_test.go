package debuglocks_test

import (
	"context"
	"errors"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/internal/keys"
	"github.com/relock-go/relock/rlock"
	"github.com/relock-go/relock/rlock/debuglocks"
	"github.com/relock-go/relock/test/testkit"
	"github.com/relock-go/relock/test/testkit/lockkit"
)

// mountPath is where the tests mount the page.
const mountPath = "/debug/locks"

// htmlType is the Content-Type of the HTML page.
const htmlType = "text/html; charset=utf-8"

// within is a generous bound on a test's commands.
const within = 20 * time.Second

// emptyServer empties the test server and returns a Client on it, closed
// when the test ends, and a go-redis client of the server.
func emptyServer(t *testing.T) (*rlock.Client, *redis.Client) {
	t.Helper()
	srv.Reset(t)
	rdb := srv.Client(t)
	return lockkit.NewClient(t, rdb), rdb
}

// lockFunc is a handle's Lock.
type lockFunc func(context.Context) error

// waitIn calls lock in a goroutine until the test ends, which cancels it
// and waits for it to return.
func waitIn(t *testing.T, lock lockFunc) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- lock(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
			t.Errorf("waiter's Lock: %v", err)
		}
	})
}

// waiting reports whether c lists owner among its waiters.
func waiting(c *rlock.Client, owner string) bool {
	return slices.ContainsFunc(c.Activity().Waiters, func(w rlock.WaiterInfo) bool { return w.Owner == owner })
}

// holdAndWait makes one owner of c hold the lock called name and another
// wait for it, until the test ends.
func holdAndWait(t *testing.T, c *rlock.Client, name string) (holder, waiter *rlock.Mutex) {
	t.Helper()
	holder, waiter = c.NewMutex(name), c.NewMutex(name)
	if err := holder.Lock(testkit.Ctx(t, within)); err != nil {
		t.Fatalf("Lock: %v", err)
	}
	waitIn(t, waiter.Lock)
	testkit.Eventually(t, 10*time.Second, "the waiter in Activity", func() bool { return waiting(c, waiter.Owner()) })
	return holder, waiter
}

// fairQueue makes one owner of c hold the fair lock called name and two
// others queue for it, in that order, until the test ends.
func fairQueue(t *testing.T, c *rlock.Client, rdb *redis.Client, name string) (holder *rlock.FairMutex, queued []*rlock.FairMutex) {
	t.Helper()
	ctx := testkit.Ctx(t, within)
	holder = c.NewFairMutex(name)
	if err := holder.Lock(ctx); err != nil {
		t.Fatalf("Lock: %v", err)
	}
	for i := range 2 {
		f := c.NewFairMutex(name)
		waitIn(t, f.Lock)
		testkit.Eventually(t, 10*time.Second, "a waiter in the fair queue", func() bool {
			n, err := rdb.LLen(ctx, keys.Queue(name)).Result()
			return err == nil && n == int64(i+1) && waiting(c, f.Owner())
		})
		queued = append(queued, f)
	}
	return holder, queued
}

// serve mounts c's page at mountPath of a test server.
func serve(t *testing.T, c *rlock.Client) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.Handle(mountPath, debuglocks.Handler(c))
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	return ts
}

// request sends method to url and returns the response and its body.
func request(t *testing.T, method, url string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(testkit.Ctx(t, within), method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading the body: %v", method, url, err)
	}
	return resp, string(body)
}

// getPage GETs url and fails unless it is a 200 response of contentType.
func getPage(t *testing.T, url, contentType string) string {
	t.Helper()
	resp, body := request(t, http.MethodGet, url)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s\n%s", url, resp.Status, body)
	}
	if got := resp.Header.Get("Content-Type"); got != contentType {
		t.Fatalf("GET %s: Content-Type %q, want %q", url, got, contentType)
	}
	return body
}

// Scraping, of the HTML the handler writes and of the DOM a browser
// serialises alike: both write double-quoted attributes in the order the
// page has them.
var (
	rowRE  = regexp.MustCompile(`(?s)<tr class="([^"]*)"[^>]*>(.*?)</tr>`)
	cellRE = regexp.MustCompile(`(?s)<td class="([^"]+)"[^>]*>(.*?)</td>`)
	tagRE  = regexp.MustCompile(`<[^>]*>`)
)

// element returns the element of doc with the given tag and id, from its
// start tag to the first end tag of its kind, or "" when there is none.
func element(doc, tag, id string) string {
	start := strings.Index(doc, "<"+tag+` id="`+id+`"`)
	if start < 0 {
		return ""
	}
	end := strings.Index(doc[start:], "</"+tag+">")
	if end < 0 {
		return ""
	}
	return doc[start : start+end+len("</"+tag+">")]
}

// row is one table row: the text of its cells by class, and its classes.
type row struct {
	classes []string
	cells   map[string]string
}

// rows returns the rows of class class (among others) of the table of id
// table in doc.
func rows(t *testing.T, doc, table, class string) []row {
	t.Helper()
	tbl := element(doc, "table", table)
	if tbl == "" {
		t.Fatalf("no table#%s in the page:\n%s", table, doc)
	}
	var out []row
	for _, m := range rowRE.FindAllStringSubmatch(tbl, -1) {
		classes := strings.Fields(m[1])
		if !slices.Contains(classes, class) {
			continue
		}
		r := row{classes: classes, cells: make(map[string]string)}
		for _, c := range cellRE.FindAllStringSubmatch(m[2], -1) {
			r.cells[c[1]] = text(c[2])
		}
		out = append(out, r)
	}
	return out
}

// text is the text of an HTML fragment.
func text(fragment string) string {
	return strings.TrimSpace(html.UnescapeString(tagRE.ReplaceAllString(fragment, "")))
}

// owners returns the owner cell of each row.
func owners(rs []row) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.cells["owner"])
	}
	return out
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

// sameSet reports whether a and b hold the same strings, in any order.
func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}
