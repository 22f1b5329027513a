//go:build unix

package debuglocks_test

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/relock-go/relock/rlock/debuglocks"
	"github.com/relock-go/relock/test/testenv"
)

// chromium returns the path of a Chromium binary, or skips the test.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if path, err := exec.LookPath(name); err == nil {
			return path
		}
	}
	testenv.Unavailable(t, "the /debug/locks browser test needs a headless Chromium: chromium not found (Debian: apt-get install -y chromium)", "make browser")
	return ""
}

// dumpDOM loads url in headless Chromium and returns the DOM it rendered.
// Chromium runs in its own process group, all of which is killed when it
// takes longer than 30 s, and whatever of it is left once it has exited.
func dumpDOM(t *testing.T, bin, url string, flags ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin,
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
		"--no-first-run", "--no-default-browser-check", "--disable-extensions",
		"--user-data-dir="+t.TempDir())
	cmd.Args = append(append(cmd.Args, flags...), "--dump-dom", url)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", bin, err)
	}
	err := cmd.Wait()
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	if err != nil {
		t.Fatalf("%s --dump-dom %s: %v (%v)\nstderr:\n%s", bin, url, err, context.Cause(ctx), lastLines(stderr.String(), 20))
	}
	return stdout.String()
}

// lastLines returns the last n lines of s.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// TestBrowser has a real browser render the page, while locks are held and
// waited for and a fair lock is inspected, and reads the tables from the
// DOM it built.
func TestBrowser(t *testing.T) {
	bin := chromium(t)
	c, rdb := emptyServer(t)
	holder, waiter := holdAndWait(t, c, "orders:42")
	// A name that is markup must reach the DOM as text.
	evil, evilWaiter := holdAndWait(t, c, `<b id="evil">x</b>`)
	const fair = "fair:1"
	fairHolder, queued := fairQueue(t, c, rdb, fair)
	ts := serve(t, c)

	start := time.Now()
	dom := dumpDOM(t, bin, ts.URL+mountPath+"?name="+url.QueryEscape(fair))
	t.Logf("chromium rendered the page in %v", time.Since(start).Round(time.Millisecond))

	if !strings.Contains(dom, "</html>") {
		t.Fatalf("not a DOM:\n%s", dom)
	}
	if strings.Contains(dom, `<b id="evil">`) {
		t.Errorf("a lock name became markup in the DOM:\n%s", dom)
	}
	checkActivity(t, dom,
		[]string{holder.Owner(), evil.Owner(), fairHolder.Owner()},
		[]string{waiter.Owner(), evilWaiter.Owner(), queued[0].Owner(), queued[1].Owner()})
	checkQueue(t, dom, fair, fairHolder.Owner(), []string{queued[0].Owner(), queued[1].Owner()})
}

// viewport is the width the page must fit: a laptop's browser window.
const viewport = 1280

// measurePage is a page that frames the debug page at the viewport's width
// and writes, once it has loaded, the laid-out widths of its tables and
// document: the debug page itself runs no script.
const measurePage = `<!DOCTYPE html><html><body style="margin:0">
<iframe id="f" src="%s" style="width:%dpx;height:900px;border:0"></iframe>
<pre id="widths"></pre>
<script>
document.getElementById("f").addEventListener("load", function () {
  var d = this.contentDocument, out = [];
  ["holds", "waiters", "holders", "queue"].forEach(function (id) {
    var e = d.getElementById(id);
    if (e) out.push(id + "=" + Math.ceil(e.getBoundingClientRect().right));
  });
  out.push("document=" + d.documentElement.scrollWidth);
  document.getElementById("widths").textContent = out.join(" ");
});
</script></body></html>`

// TestBrowserFitsViewport has a real browser lay the page out in a
// 1280 px wide frame, with holds of long names and a fair lock inspected,
// and checks that no table reaches past the frame's right edge: nothing
// is cut off and nothing scrolls sideways.
func TestBrowserFitsViewport(t *testing.T) {
	bin := chromium(t)
	c, rdb := emptyServer(t)
	holdAndWait(t, c, "orders:2026-11:customer-4242")
	holdAndWait(t, c, "inventory:warehouse-eu-west")
	const fair = "jobs:nightly-report"
	fairQueue(t, c, rdb, fair)
	mux := http.NewServeMux()
	mux.Handle(mountPath, debuglocks.Handler(c))
	mux.HandleFunc("/measure", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, measurePage, mountPath+"?name="+url.QueryEscape(fair), viewport)
	})
	measure := httptest.NewServer(mux)
	t.Cleanup(measure.Close)

	dom := dumpDOM(t, bin, measure.URL+"/measure", fmt.Sprintf("--window-size=%d,1000", viewport+40), "--virtual-time-budget=10000")
	m := regexp.MustCompile(`<pre id="widths">([^<]*)</pre>`).FindStringSubmatch(dom)
	if m == nil || !strings.Contains(m[1], "holds=") || !strings.Contains(m[1], "queue=") {
		t.Fatalf("the page was not measured:\n%s", lastLines(dom, 20))
	}
	t.Logf("laid out in %d px: %s", viewport, m[1])
	for _, f := range strings.Fields(m[1]) {
		name, px, _ := strings.Cut(f, "=")
		if n, err := strconv.Atoi(px); err != nil || n > viewport {
			t.Errorf("%s is %s px wide, more than the %d px viewport", name, px, viewport)
		}
	}
}

// TestBrowserRateClients has a real browser render the page of a rate
// limiter per client, and reads every client's row from the DOM.
func TestBrowserRateClients(t *testing.T) {
	bin := chromium(t)
	const name = "api:each"
	c, other := rateClients(t, name)
	dom := dumpDOM(t, bin, serve(t, c).URL+mountPath+"?name="+url.QueryEscape(name))
	got := map[string]string{}
	for _, r := range rows(t, dom, "rate-clients", "rate-client") {
		got[r.cells["client"]] = r.cells["available"]
	}
	if want := map[string]string{c.ID(): "7", other.ID(): "6"}; !maps.Equal(got, want) {
		t.Errorf("the DOM's rate-clients rows %v, want %v", got, want)
	}
}
