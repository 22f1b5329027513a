package debuglocks_test

import (
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/relock-go/relock/rlock/debuglocks"
)

func TestPageShowsActivity(t *testing.T) {
	c, _ := emptyServer(t)
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

func TestEscaping(t *testing.T) {
	c, _ := emptyServer(t)
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
	c, _ := emptyServer(t)
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
	c, _ := emptyServer(t)
	holder, waiter := holdAndWait(t, c, "orders:42")
	rec := httptest.NewRecorder()
	debuglocks.Handler(c).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/admin/locks/anything", nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("status %d", rec.Code)
	}
	checkActivity(t, rec.Body.String(), []string{holder.Owner()}, []string{waiter.Owner()})
}
