package debuglocks

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"time"

	"github.com/relock-go/relock/rlock"
)

// inspectTimeout bounds the Inspect call of one request.
const inspectTimeout = 5 * time.Second

// Handler returns the handler of c's page: HTML, or JSON with
// ?format=json, for GET and HEAD at any path. See the package doc.
func Handler(c *rlock.Client) http.Handler {
	h := handler{c: c}
	if name := c.Name(); name != "" {
		host, _ := os.Hostname()
		h.label = rlock.ClientLabel{Name: name, Host: host}.String()
	}
	return h
}

type handler struct {
	c     *rlock.Client
	label string // the Client's, as the page shows it
}

// The bounds of ?refresh: the page reloads at most every second, at least
// every hour.
const minRefresh, maxRefresh = time.Second, time.Hour

// parseRefresh is the period ?refresh=s asks for (0 for none), or an error
// that says what it takes.
func parseRefresh(s string) (refresh, error) {
	if s == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < minRefresh || d > maxRefresh {
		return 0, fmt.Errorf("refresh=%q: want a duration from %v to %v, such as 5s", s, minRefresh, maxRefresh)
	}
	return refresh(d), nil
}

func (h handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed: use GET", http.StatusMethodNotAllowed)
		return
	}
	q := r.URL.Query()
	format := q.Get("format")
	if format != "" && format != "html" && format != "json" {
		http.Error(w, `unknown format: use format=json, or none for HTML`, http.StatusBadRequest)
		return
	}
	every, err := parseRefresh(q.Get("refresh"))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	p := h.snapshot(r.Context(), q.Get("name"), rlock.Kind(q.Get("kind")))
	p.Refresh = every

	var buf bytes.Buffer
	contentType := "text/html; charset=utf-8"
	if format == "json" {
		contentType = "application/json"
		enc := json.NewEncoder(&buf)
		enc.SetIndent("", "  ")
		err = enc.Encode(p)
	} else {
		err = pageTemplate.Execute(&buf, p)
	}
	if err != nil {
		http.Error(w, "debuglocks: "+err.Error(), http.StatusInternalServerError)
		return
	}
	hdr := w.Header()
	hdr.Set("Content-Type", contentType)
	hdr.Set("Cache-Control", "no-store")
	hdr.Set("X-Content-Type-Options", "nosniff")
	hdr.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; base-uri 'none'")
	_, _ = w.Write(buf.Bytes())
}

// snapshot reads c's activity and, for a name, Inspect's view of it (of
// kind, when given: InspectKind).
func (h handler) snapshot(ctx context.Context, name string, kind rlock.Kind) page {
	now := time.Now()
	p := page{Client: h.c.ID(), Label: h.label, Time: now, Activity: activityOf(h.c.Activity(), now)}
	p.Elections = h.elections(ctx, now)
	if name == "" {
		return p
	}
	ctx, cancel := context.WithTimeout(ctx, inspectTimeout)
	defer cancel()
	info, err := h.c.Inspect(ctx, name)
	if kind != "" {
		info, err = h.c.InspectKind(ctx, name, kind)
	}
	// Holds and waiters are compared with the moment Inspect returned.
	now = time.Now()
	p.Inspect = &inspection{Name: name, AskedKind: kind}
	if err != nil {
		p.Inspect.Error = err.Error()
	} else {
		p.Inspect.lockView = lockOf(info, h.c.ID(), now)
	}
	return p
}
