package debuglocks_test

import (
	"encoding/json"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"
)

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

// activityJSON is the Client's holds and waiters, as the page lists them
// and as an inspected lock's local part.
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

func TestJSON(t *testing.T) {
	c, _ := emptyServer(t)
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
