package main

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/relock-go/relock/rlock"
	"github.com/relock-go/relock/test/testkit"
)

// A rate limiter is found by inspect and list without --kind: its rate
// and the permits available now, as text and as JSON.
func TestInspectAndListRateLimiter(t *testing.T) {
	ctx := testkit.Ctx(t, 10*time.Second)
	c := fresh(t).client()
	l := c.NewRateLimiter("api:calls")
	if err := l.SetRate(ctx, rlock.Rate{Limit: 10, Interval: time.Minute, KeepAlive: time.Hour}); err != nil {
		t.Fatal(err)
	}
	if ok, err := l.AllowN(ctx, 4); !ok || err != nil {
		t.Fatalf("AllowN(4) = %v, %v", ok, err)
	}
	r := relock(t, "", "inspect", "api:calls")
	r.want(t, 0, []string{"kind       rate-limiter\n", "rate       10 per 1m0s, overall, kept 1h0m0s idle\n", "available  6\n"}, nil)
	t.Logf("relock inspect api:calls\n%s", r.stdout)

	r = relock(t, "", "inspect", "--json", "api:calls")
	var v lockView
	if err := json.Unmarshal([]byte(r.stdout), &v); err != nil {
		t.Fatalf("%v:\n%s", err, r.stdout)
	}
	if v.Kind != "rate-limiter" || v.Count == nil || *v.Count != 6 || v.Rate == nil || *v.Rate != (rateView{Limit: 10, IntervalMillis: 60000, KeepAliveMillis: 3600000}) || v.CountSet != nil {
		t.Fatalf("inspect --json = %s", r.stdout)
	}

	lock(t, c.NewMutex("api:lock"))
	r = relock(t, "", "list", "api:*")
	r.want(t, 0, []string{"api:lock   mutex"}, nil)
	t.Logf("relock list api:*\n%s", r.stdout)
	// The columns' widths follow the lock's TTL: compare the words.
	if i := strings.Index(r.stdout, "api:calls"); i < 0 || !slices.Equal(strings.Fields(strings.SplitN(r.stdout[i:], "\n", 2)[0]), []string{"api:calls", "rate-limiter", "-", "-", "-", "6"}) {
		t.Errorf("list's line of the limiter is not: api:calls rate-limiter - - - 6")
	}
}
