package main

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/relock-go/relock/test/testkit"
)

// A permit-expirable semaphore shows its available permits and its leased
// permits, the one that never expires last, as text and as JSON.
func TestInspectPermitSemaphore(t *testing.T) {
	ctx := testkit.Ctx(t, 10*time.Second)
	c := fresh(t).client()
	s := c.NewPermitExpirableSemaphore("jobs:pes")
	if _, err := s.TrySetPermits(ctx, 3); err != nil {
		t.Fatal(err)
	}
	leased, err := s.Acquire(ctx, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	forever, err := s.Acquire(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}

	r := relock(t, "", "inspect", "jobs:pes")
	r.want(t, 0, []string{"kind         permit-semaphore\n", "available    1\n", "leased permits (earliest expiry first):\n",
		leased.ID + "  in ", forever.ID + "  never\n"}, nil)
	t.Logf("relock inspect jobs:pes\n%s", r.stdout)

	r = relock(t, "", "inspect", "--json", "jobs:pes")
	r.want(t, 0, nil, nil)
	var v lockView
	if err := json.Unmarshal([]byte(r.stdout), &v); err != nil {
		t.Fatalf("%v:\n%s", err, r.stdout)
	}
	if v.Kind != "permit-semaphore" || v.Count == nil || *v.Count != 1 || len(v.Permits) != 2 {
		t.Fatalf("inspect --json = %s", r.stdout)
	}
	if p := v.Permits[0]; p.ID != leased.ID || p.ExpiresInMillis == nil || *p.ExpiresInMillis <= 0 || !p.Expiry.Equal(leased.Expiry().Truncate(time.Millisecond)) {
		t.Errorf("first permit %+v; want %s, expiring in an hour", p, leased.ID)
	}
	if p := v.Permits[1]; p.ID != forever.ID || p.ExpiresInMillis != nil || !p.Expiry.IsZero() {
		t.Errorf("second permit %+v; want %s, never expiring", p, forever.ID)
	}
}

// A semaphore's count is a count until --kind says whose; a latch's with
// --kind count-down-latch; a --kind that is not one of theirs is a usage
// error.
func TestInspectCountKind(t *testing.T) {
	ctx := testkit.Ctx(t, 10*time.Second)
	c := fresh(t).client()
	if _, err := c.NewSemaphore("jobs:sem").TrySetPermits(ctx, 4); err != nil {
		t.Fatal(err)
	}
	if _, err := c.NewCountDownLatch("jobs:ready").TrySetCount(ctx, 2); err != nil {
		t.Fatal(err)
	}
	relock(t, "", "inspect", "jobs:sem").want(t, 0, []string{"kind         count (a semaphore's permits, a latch's count or any counter, which Redis keeps alike: --kind", "count        4\n"}, nil)
	relock(t, "", "inspect", "--kind", "semaphore", "jobs:sem").want(t, 0, []string{"kind         semaphore\n", "available    4\n", "subscribers  0\n"}, nil)
	relock(t, "", "inspect", "--kind", "count-down-latch", "jobs:ready").want(t, 0, []string{"kind         count-down-latch\n", "count        2\n"}, nil)
	relock(t, "", "inspect", "--kind", "mutex", "jobs:sem").want(t, exitUsage, nil, []string{`--kind "mutex": want semaphore`})
}

// A semaphore nobody gave permits to says so, as text and as JSON.
func TestInspectSemaphoreWithoutPermits(t *testing.T) {
	fresh(t)
	relock(t, "", "inspect", "--kind", "semaphore", "jobs:none").want(t, 0, []string{"kind         semaphore\n", "available    0: no permits set"}, nil)
	r := relock(t, "", "inspect", "--kind", "semaphore", "--json", "jobs:none")
	var v lockView
	if err := json.Unmarshal([]byte(r.stdout), &v); err != nil {
		t.Fatalf("%v:\n%s", err, r.stdout)
	}
	if v.CountSet == nil || *v.CountSet || v.Count == nil || *v.Count != 0 {
		t.Errorf("inspect --json of a semaphore without permits = %s", r.stdout)
	}
	ctx := testkit.Ctx(t, 10*time.Second)
	if _, err := fresh(t).client().NewSemaphore("jobs:none").TrySetPermits(ctx, 0); err != nil {
		t.Fatal(err)
	}
	relock(t, "", "inspect", "--kind", "semaphore", "jobs:none").want(t, 0, []string{"available    0\n"}, nil)
}
