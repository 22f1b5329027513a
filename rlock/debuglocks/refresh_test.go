package debuglocks_test

import (
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/relock-go/relock/rlock"
	"github.com/relock-go/relock/test/testkit"
	"github.com/relock-go/relock/test/testkit/lockkit"
)

// ?refresh makes the page reload itself at that period, kept by the
// inspect form; a period that is not a duration from 1s to 1h is a 400
// that says what it takes.
func TestRefresh(t *testing.T) {
	c, _ := emptyServer(t)
	ts := serve(t, c)
	doc := getPage(t, ts.URL+mountPath+"?refresh=2500ms", htmlType)
	if !strings.Contains(doc, `<meta http-equiv="refresh" content="3">`) {
		t.Errorf("no refresh every 3s (2.5s rounded up) in the page:\n%s", doc)
	}
	if !strings.Contains(doc, `<input type="hidden" name="refresh" value="2.5s">`) {
		t.Errorf("the inspect form does not keep the refresh")
	}
	if doc := getPage(t, ts.URL+mountPath, htmlType); strings.Contains(doc, `http-equiv="refresh"`) {
		t.Errorf("a page without ?refresh reloads itself")
	}
	for _, bad := range []string{"0s", "500ms", "2h", "5", "soon", "-5s"} {
		resp, body := request(t, http.MethodGet, ts.URL+mountPath+"?refresh="+bad)
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, "from 1s to 1h0m0s") {
			t.Errorf("refresh=%s: status %d, %q; want 400 saying what it takes", bad, resp.StatusCode, body)
		}
	}
}

// A named Client's label is in the page's header, and beside its holds
// when a lock is inspected, in the page and in the JSON.
func TestLabels(t *testing.T) {
	_, rdb := emptyServer(t)
	c := lockkit.NewClient(t, rdb, rlock.WithClientName("billing-worker"))
	testkit.Eventually(t, 5*time.Second, "the label", func() bool {
		return rdb.Exists(testkit.Ctx(t, within), "relock_client:{"+c.ID()+"}").Val() == 1
	})
	m := c.NewMutex("orders:7")
	if err := m.Lock(testkit.Ctx(t, within)); err != nil {
		t.Fatal(err)
	}
	ts := serve(t, c)
	host, _ := os.Hostname()
	want := "billing-worker@" + host
	doc := getPage(t, ts.URL+mountPath+"?name=orders:7", htmlType)
	if got := text(element(doc, "span", "label")); got != want {
		t.Errorf("header label %q, want %q", got, want)
	}
	if h := rows(t, doc, "holders", "holder"); len(h) != 1 || h[0].cells["label"] != want {
		t.Errorf("holders %+v, want one labelled %q", h, want)
	}
}
