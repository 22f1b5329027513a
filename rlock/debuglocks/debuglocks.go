package debuglocks

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/relock-go/relock/rlock"
)

// inspectTimeout bounds the Inspect call of one request.
const inspectTimeout = 5 * time.Second

// Handler returns the handler of c's page: HTML, or JSON with
// ?format=json, for GET and HEAD at any path. See the package doc.
func Handler(c *rlock.Client) http.Handler { return handler{c} }

type handler struct{ c *rlock.Client }

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
	p := h.snapshot(r.Context(), q.Get("name"))

	var buf bytes.Buffer
	var err error
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

// snapshot reads c's activity and, for a name, Inspect's view of it.
func (h handler) snapshot(ctx context.Context, name string) page {
	now := time.Now()
	p := page{Client: h.c.ID(), Time: now, Activity: activityOf(h.c.Activity(), now)}
	if name == "" {
		return p
	}
	ctx, cancel := context.WithTimeout(ctx, inspectTimeout)
	defer cancel()
	info, err := h.c.Inspect(ctx, name)
	// Holds and waiters are compared with the moment Inspect returned.
	now = time.Now()
	p.Inspect = &inspection{Name: name}
	if err != nil {
		p.Inspect.Error = err.Error()
	} else {
		p.Inspect.lockView = lockOf(info, h.c.ID(), now)
	}
	return p
}
