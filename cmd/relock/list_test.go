package main

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/relock-go/relock/internal/keys"
	"github.com/relock-go/relock/rlock"
	"github.com/relock-go/relock/test/testkit"
)

// TestListPattern lists the locks, semaphores and latches matching a
// pattern, with their kinds: other names, keys of other kinds and a fenced
// lock's token counter are left out. A count is a count (a semaphore's, a
// latch's or any counter's: Redis keeps them alike) until leases beside it
// or a waiter on its channel show its kind.
func TestListPattern(t *testing.T) {
	s := fresh(t)
	c := s.client()
	lock(t, c.NewMutex("list:a"))
	fenced := c.NewFencedMutex("list:b")
	if _, err := fenced.Lock(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = fenced.Unlock(context.Background()) })
	lock(t, c.NewMutex("other:x"))
	ctx := context.Background()
	if err := s.rdb.Set(ctx, "list:string", "x", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if err := s.rdb.HSet(ctx, "list:hash", "field", "value").Err(); err != nil {
		t.Fatal(err)
	}
	if _, err := c.NewSemaphore("list:sem").TrySetPermits(ctx, 3); err != nil {
		t.Fatal(err)
	}
	if _, err := c.NewCountDownLatch("list:latch").TrySetCount(ctx, 2); err != nil {
		t.Fatal(err)
	}
	pe := c.NewPermitExpirableSemaphore("list:pe")
	if _, err := pe.TrySetPermits(ctx, 2); err != nil {
		t.Fatal(err)
	}
	if _, err := pe.Acquire(ctx, 0); err != nil {
		t.Fatal(err)
	}
	if err := s.rdb.IncrBy(ctx, "list:visits", 7).Err(); err != nil {
		t.Fatal(err)
	}
	awaited := c.NewCountDownLatch("list:awaited")
	if _, err := awaited.TrySetCount(ctx, 1); err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() { _ = awaited.Await(wctx) }()
	testkit.Eventually(t, 5*time.Second, "the latch's waiter listening", func() bool {
		return testkit.Subscribers(ctx, s.rdb, keys.LatchChannel("list:awaited")) == 1
	})

	r := relock(t, "", "list", "list:*")
	r.want(t, 0, nil, nil)
	var rows [][]string
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		f := strings.Fields(line)
		rows = append(rows, []string{f[0], f[1], f[2], f[4], f[5]}) // not the TTL
	}
	want := [][]string{
		{"NAME", "KIND", "HOLDERS", "QUEUE", "COUNT"},
		{"list:a", "mutex", "1", "0", "-"},
		{"list:awaited", "count-down-latch", "-", "-", "1"},
		{"list:b", "fenced", "1", "0", "-"},
		{"list:latch", "count", "-", "-", "2"},
		{"list:pe", "permit-semaphore", "-", "-", "1"},
		{"list:sem", "count", "-", "-", "3"},
		{"list:visits", "count", "-", "-", "7"},
	}
	if !slices.EqualFunc(rows, want, slices.Equal) {
		t.Errorf("list list:* =\n%s\nwant rows %q", r.stdout, want)
	}
	t.Logf("relock list 'list:*'\n%s", r.stdout)

	r = relock(t, "", "list", "--json")
	r.want(t, 0, nil, nil)
	var views []lockView
	if err := json.Unmarshal([]byte(r.stdout), &views); err != nil {
		t.Fatalf("%v:\n%s", err, r.stdout)
	}
	var names []string
	for _, v := range views {
		names = append(names, v.Name)
	}
	if want := []string{"list:a", "list:awaited", "list:b", "list:latch", "list:pe", "list:sem", "list:visits", "other:x"}; !slices.Equal(names, want) {
		t.Errorf("list --json names %q, want %q", names, want)
	}
}

// TestListOneLinePerObject lists a rate limiter, overall and per client,
// and a read-write lock with readers, one line each: the keys they keep
// beside their names (a limiter's counts of permits, its clients', a read
// hold's lease) are no counts. A count whose name looks like a limiter's
// but that has no limiter's config beside it is listed. Inspected by
// name, a limiter's count names its limiter.
func TestListOneLinePerObject(t *testing.T) {
	s := fresh(t)
	ctx := testkit.Ctx(t, 10*time.Second)
	a, b := s.client(), s.client()
	for _, r := range []struct {
		name string
		rate rlock.Rate
	}{{"api:rate", rlock.Rate{Limit: 10, Interval: time.Minute}}, {"api:each", rlock.Rate{Limit: 10, Interval: time.Minute, PerClient: true}}} {
		if err := a.NewRateLimiter(r.name).SetRate(ctx, r.rate); err != nil {
			t.Fatal(err)
		}
		take(ctx, t, r.name, map[*rlock.Client]int{a: 2, b: 2})
	}
	rw := a.NewRWMutex("api:rw")
	for range 2 {
		if err := rw.RLock(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.rdb.Set(ctx, keys.RateValue("api:gone"), 4, 0).Err(); err != nil {
		t.Fatal(err)
	}

	r := relock(t, "", "list")
	r.want(t, 0, nil, nil)
	var rows [][]string
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n")[1:] {
		f := strings.Fields(line)
		rows = append(rows, []string{f[0], f[1], f[5]})
	}
	want := [][]string{
		{"api:each", "rate-limiter", "-"},
		{"api:rate", "rate-limiter", "6"},
		{"api:rw", "read-write", "-"},
		{keys.RateValue("api:gone"), "count", "4"},
	}
	if !slices.EqualFunc(rows, want, slices.Equal) {
		t.Errorf("list =\n%s\nwant rows (name, kind, count) %q", r.stdout, want)
	}
	t.Logf("relock list\n%s", r.stdout)

	// Inspected by name, a limiter's count says whose it is.
	relock(t, "", "inspect", keys.RateClient(keys.RateValue("api:each"), a.ID())).want(t, 0, []string{`count: the permits kept by the rate limiter "api:each" (relock inspect api:each shows it)`}, nil)
	relock(t, "", "inspect", "--json", keys.RateValue("api:rate")).want(t, 0, []string{`"rate_limiter": "api:rate"`}, nil)
	r = relock(t, "", "inspect", keys.RateValue("api:gone"))
	if r.want(t, 0, []string{"count (a semaphore's permits"}, nil); strings.Contains(r.stdout, "rate limiter") {
		t.Errorf("inspect of a count of no limiter names one:\n%s", r.stdout)
	}
}
