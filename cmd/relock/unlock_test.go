package main

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/relock-go/relock/rlock"
)

// TestUnlockForce refuses at the prompt, then deletes on "y", and with
// --yes; the holder learns it lost the lock.
func TestUnlockForce(t *testing.T) {
	s := fresh(t)
	c := s.client(rlock.WithWatchdogTimeout(300 * time.Millisecond))
	m := c.NewMutex("stuck")
	lock(t, m)
	exists := func() int64 { return s.rdb.Exists(context.Background(), "stuck").Val() }

	prompt := `force-unlock "stuck" held by ` + m.Owner() + ` (count 1)? [y/N] `
	relock(t, "n\n", "unlock", "--force", "stuck").want(t, 1, nil, []string{prompt, "not unlocked"})
	relock(t, "", "unlock", "--force", "stuck").want(t, 1, nil, []string{prompt, "not unlocked"})
	if exists() != 1 {
		t.Fatal("a refused unlock deleted the lock")
	}

	r := relock(t, "y\n", "unlock", "--force", "stuck")
	r.want(t, 0, []string{`deleted lock "stuck", held by ` + m.Owner() + " (count 1)\n"}, []string{prompt})
	if exists() != 0 {
		t.Fatal("the lock is still there")
	}
	select {
	case <-m.Lost():
	case <-time.After(5 * time.Second):
		t.Error("Lost not closed 5s after the force-unlock")
	}
	relock(t, "", "unlock", "--force", "stuck").want(t, 0, []string{`no lock named "stuck" is held`}, nil)

	m2 := c.NewMutex("stuck2")
	lock(t, m2)
	r = relock(t, "", "unlock", "--force", "--yes", "--json", "stuck2")
	r.want(t, 0, nil, nil)
	var got unlockResult
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatalf("%v:\n%s", err, r.stdout)
	}
	if !got.Deleted || len(got.Holders) != 1 || got.Holders[0].Owner != m2.Owner() || r.stderr != "" {
		t.Errorf("unlock --yes --json = %+v, stderr %q; want deleted, held by %s, no prompt", got, r.stderr, m2.Owner())
	}
}
