package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/relock-go/relock/rlock"
	"github.com/relock-go/relock/test/testkit"
)

// TestInspectReentrantMutex inspects a mutex held twice by one owner, as
// text and as JSON.
func TestInspectReentrantMutex(t *testing.T) {
	c := fresh(t).client()
	m := c.NewMutex("orders:42")
	lock(t, m)
	if err := m.Reenter(context.Background()); err != nil {
		t.Fatal(err)
	}

	r := relock(t, "", "inspect", "orders:42")
	r.want(t, 0, []string{"lock         orders:42\n", "kind         mutex\n", "state        held, expires in "}, nil)
	var holder []string
	for _, line := range strings.Split(r.stdout, "\n") {
		if f := strings.Fields(line); len(f) > 0 && f[0] == m.Owner() {
			holder = f
		}
	}
	if want := []string{m.Owner(), "-", "2"}; !slices.Equal(holder, want) {
		t.Errorf("holder line %q, want %q:\n%s", holder, want, r.stdout)
	}
	t.Logf("relock inspect orders:42\n%s", r.stdout)

	r = relock(t, "", "inspect", "--json", "orders:42")
	r.want(t, 0, nil, nil)
	var v lockView
	if err := json.Unmarshal([]byte(r.stdout), &v); err != nil {
		t.Fatalf("%v:\n%s", err, r.stdout)
	}
	want := []holderView{{Owner: m.Owner(), Client: c.ID(), Count: 2}}
	if v.Name != "orders:42" || v.Kind != "mutex" || !v.Held || !slices.Equal(v.Holders, want) || len(v.Queue) != 0 {
		t.Errorf("inspect --json = %+v, want mutex orders:42 held by %+v", v, want)
	}
	if ttl := time.Duration(v.TTLMillis) * time.Millisecond; ttl <= 0 || ttl > rlockDefaultLease {
		t.Errorf("ttl_ms %d, want within the watchdog lease", v.TTLMillis)
	}
}

// TestInspectShowsLabels shows a named Client's label beside its hold, in
// the text's LABEL column and in the JSON.
func TestInspectShowsLabels(t *testing.T) {
	s := fresh(t)
	c := s.client(rlock.WithClientName("billing-worker"))
	testkit.Eventually(t, 5*time.Second, "the label", func() bool {
		return s.rdb.Exists(context.Background(), "relock_client:{"+c.ID()+"}").Val() == 1
	})
	m := c.NewMutex("labelled")
	lock(t, m)
	host, _ := os.Hostname()
	label := fmt.Sprintf("billing-worker@%s pid %d", host, os.Getpid())
	relock(t, "", "inspect", "labelled").want(t, 0, []string{"OWNER", "LABEL", m.Owner() + "  " + label}, nil)

	r := relock(t, "", "inspect", "--json", "labelled")
	var v lockView
	if err := json.Unmarshal([]byte(r.stdout), &v); err != nil {
		t.Fatalf("%v:\n%s", err, r.stdout)
	}
	if len(v.Holders) != 1 || v.Holders[0].Label == nil || v.Holders[0].Label.Name != "billing-worker" || v.Holders[0].Label.PID != os.Getpid() {
		t.Errorf("inspect --json holders %+v, want the billing-worker label", v.Holders)
	}
}

// rlockDefaultLease is the lease of a lock taken without one.
const rlockDefaultLease = 30 * time.Second

// TestInspectFairQueueJSON inspects a fair lock with two relock waiters
// queued: they are listed head first, each with its deadline.
func TestInspectFairQueueJSON(t *testing.T) {
	holder, waiters, _ := contendedFair(t, fresh(t), "jobs")

	r := relock(t, "", "inspect", "jobs", "--json")
	r.want(t, 0, nil, nil)
	var v lockView
	if err := json.Unmarshal([]byte(r.stdout), &v); err != nil {
		t.Fatalf("%v:\n%s", err, r.stdout)
	}
	if v.Kind != "fair" || !v.Held || len(v.Holders) != 1 || v.Holders[0].Owner != holder.Owner() {
		t.Errorf("inspect --json = %+v, want fair lock held by %s", v, holder.Owner())
	}
	if len(v.Queue) != 2 {
		t.Fatalf("queue %+v, want 2 waiters", v.Queue)
	}
	for i, q := range v.Queue {
		if q.Position != i+1 || q.Owner != waiters[i].Owner() || !q.Relock {
			t.Errorf("queue[%d] = %+v, want position %d, owner %s, relock", i, q, i+1, waiters[i].Owner())
		}
		if q.DeadlineInMillis <= 0 || q.Deadline.IsZero() {
			t.Errorf("queue[%d] = %+v, want a deadline to come", i, q)
		}
	}
	if v.Subscribers < 2 {
		t.Errorf("subscribers %d, want the 2 waiters at least", v.Subscribers)
	}

	r = relock(t, "", "inspect", "jobs")
	r.want(t, 0, []string{"kind         fair\n", "queue (head first):\n", "POS  OWNER"}, nil)
	for i, w := range waiters {
		if !strings.Contains(r.stdout, "  "+string(rune('1'+i))+"    "+w.Owner()+"  ") {
			t.Errorf("inspect lacks waiter %d, %s:\n%s", i+1, w.Owner(), r.stdout)
		}
	}
	t.Logf("relock inspect jobs\n%s", r.stdout)
}

// TestInspectNothing reports a missing lock, and fails on a key that is
// no lock, semaphore or latch, saying what it holds.
func TestInspectNothing(t *testing.T) {
	rdb := fresh(t).rdb
	relock(t, "", "inspect", "nothing").want(t, 0, []string{`no lock named "nothing"`}, nil)
	if err := rdb.Set(context.Background(), "text", "hello", 0).Err(); err != nil {
		t.Fatal(err)
	}
	r := relock(t, "", "inspect", "text")
	r.want(t, 1, nil, []string{`relock inspect "text": key holds a value of another kind: it is a string that is not a count` + "\n"})
	if strings.Count(r.stderr, "relock") != 1 || strings.Contains(r.stderr, "rlock:") {
		t.Errorf("the error is prefixed more than once:\n%s", r.stderr)
	}
	u := relock(t, "", "unlock", "--force", "--yes", "text")
	u.want(t, 1, nil, []string{`relock unlock "text": key holds a value of another kind: it is a string that is not a count` + "\n"})
	if strings.Contains(u.stderr, "rlock:") || strings.Contains(u.stderr, "inspect") {
		t.Errorf("the error is prefixed more than once:\n%s", u.stderr)
	}
	if err := rdb.RPush(context.Background(), "queue", "job").Err(); err != nil {
		t.Fatal(err)
	}
	relock(t, "", "inspect", "queue").want(t, 1, nil, []string{`relock inspect "queue": key holds a value of another kind: it is a list, not a lock or a count` + "\n"})
}
