package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/relock-go/relock/internal/keys"
	"github.com/relock-go/relock/queue"
	"github.com/relock-go/relock/rlock"
	"github.com/relock-go/relock/test/testkit"
)

// TestWatchFairHandoff watches a fair lock with two waiters while its
// holder, then the next, unlock: each hand-off is redrawn at once, showing
// the new holder, and --count 2 ends the watch after the second. One watch
// prints JSON, the other text.
func TestWatchFairHandoff(t *testing.T) {
	holder, waiters, calls := contendedFair(t, fresh(t), "handoff")

	jsonCmd := relockCmd(t, "watch", "--count", "2", "--json", "--addr", srv.Addr, "handoff")
	textCmd := relockCmd(t, "watch", "handoff", "--addr", srv.Addr, "--count=2")
	var jsonOut, textOut strings.Builder
	jsonLines, textLines := start(t, jsonCmd), start(t, textCmd)

	// The first view comes once the watch has subscribed.
	frame := func(n int) watchFrame {
		t.Helper()
		var f watchFrame
		line := nextLine(t, jsonLines, fmt.Sprintf(`"redraw":%d,`, n), &jsonOut)
		if err := json.Unmarshal([]byte(line), &f); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		nextLine(t, textLines, fmt.Sprintf("  redraw %d: ", n), &textOut)
		return f
	}
	holds := func(f watchFrame, owner string, queued int) {
		t.Helper()
		if len(f.Lock.Holders) != 1 || f.Lock.Holders[0].Owner != owner || len(f.Lock.Queue) != queued {
			t.Errorf("redraw %d (%s) shows %+v, want held by %s with %d queued", f.Redraw, f.Reason, f.Lock, owner, queued)
		}
	}
	f := frame(0)
	if f.Reason != "start" {
		t.Errorf("first view's reason %q, want start", f.Reason)
	}
	holds(f, holder.Owner(), 2)

	if err := holder.Unlock(context.Background()); err != nil {
		t.Fatal(err)
	}
	f = frame(1)
	holds(f, waiters[0].Owner(), 1)
	if want := keys.TurnPrefix + waiters[0].Owner(); f.Reason != "message" || f.Channel != keys.TurnChannel("handoff") || f.Message != want {
		t.Errorf("redraw 1 for %s %q on %s, want %q on the lock's channel", f.Reason, f.Message, f.Channel, want)
	}

	calls[0].wait(t)
	if err := waiters[0].Unlock(context.Background()); err != nil {
		t.Fatal(err)
	}
	holds(frame(2), waiters[1].Owner(), 0)
	calls[1].wait(t)

	drain(jsonLines, &jsonOut)
	drain(textLines, &textOut)
	for _, cmd := range []*exec.Cmd{jsonCmd, textCmd} {
		if err := cmd.Wait(); err != nil {
			t.Errorf("%s: %v", cmd, err)
		}
	}
	if strings.Count(textOut.String(), "  redraw ") != 3 {
		t.Errorf("text watch printed other than 3 views:\n%s", textOut.String())
	}
	t.Logf("relock watch --count 2 handoff\n%s", textOut.String())
	t.Logf("relock watch --count 2 --json handoff\n%s", jsonOut.String())
}

// TestWatchShardedCluster watches a fair lock on a Redis Cluster, where
// relock announces by sharded pub/sub: the watch subscribes to the
// waiters' own channels, and sees the hand-off to the head.
func TestWatchShardedCluster(t *testing.T) {
	cluster := sharedCluster(t)
	holder, waiters, calls := contendedFair(t, server{t, cluster.Client(t)}, "orders:7")
	addrs := []string{"--cluster", "--addr", strings.Join(cluster.Addrs(), ",")}

	cmd := relockCmd(t, append([]string{"watch", "orders:7", "--json", "--count", "1"}, addrs...)...)
	frames := start(t, cmd)
	var out strings.Builder
	nextLine(t, frames, `"redraw":0,`, &out)
	if err := holder.Unlock(context.Background()); err != nil {
		t.Fatal(err)
	}
	var f watchFrame
	if err := json.Unmarshal([]byte(nextLine(t, frames, `"redraw":1,`, &out)), &f); err != nil {
		t.Fatal(err)
	}
	if want := keys.TurnPrefix + waiters[0].Owner(); f.Reason != "message" || f.Channel != keys.TurnChannel("orders:7") || f.Message != want ||
		len(f.Lock.Holders) != 1 || f.Lock.Holders[0].Owner != waiters[0].Owner() {
		t.Errorf("redraw 1 = %+v, want %q on the lock's channel and the lock held by %s", f, want, waiters[0].Owner())
	}
	drain(frames, &out)
	if err := cmd.Wait(); err != nil {
		t.Errorf("watch: %v", err)
	}
	calls[0].wait(t)

	r := runCmd(t, relockCmd(t, append([]string{"list"}, addrs...)...), "")
	r.want(t, 0, []string{"orders:7  fair"}, nil)
}

// TestWatchExpiry redraws a lock once the TTL it showed has run out,
// though an expiry announces nothing; --for ends a watch with status 0.
// The lease must outlast the watch's start: a watch that started after
// the lease ran out shows nothing held, and the trial runs once more with
// a lease four times as long.
func TestWatchExpiry(t *testing.T) {
	m := fresh(t).client().NewMutex("lease")
	var out strings.Builder
	for lease := 300 * time.Millisecond; ; lease *= 4 {
		if err := m.LockWithLease(context.Background(), lease); err != nil {
			t.Fatal(err)
		}
		cmd := relockCmd(t, "watch", "--json", "--count", "1", "--addr", srv.Addr, "lease")
		frames := start(t, cmd)
		var first watchFrame
		if err := json.Unmarshal([]byte(nextLine(t, frames, `"redraw":0,`, &out)), &first); err != nil {
			t.Fatal(err)
		}
		if !first.Lock.Held && lease < time.Second {
			t.Logf("the watch started after a lease of %v ran out: again with a longer one", lease)
			_ = cmd.Process.Kill()
			drain(frames, &out)
			continue
		}
		var next watchFrame
		if err := json.Unmarshal([]byte(nextLine(t, frames, `"redraw":1,`, &out)), &next); err != nil {
			t.Fatal(err)
		}
		drain(frames, &out)
		if err := cmd.Wait(); err != nil {
			t.Errorf("watch: %v", err)
		}
		if !first.Lock.Held || next.Reason != "ttl" || next.Lock.Held {
			t.Errorf("watch printed %+v, then %+v, want the held lock, then its expiry", first, next)
		}
		break
	}

	r := relock(t, "", "watch", "--for", "100ms", "lease")
	r.want(t, 0, []string{"redraw 0: start\n", `no lock named "lease"`}, nil)
}

// TestWatchKeepsNoDeadWaiterAlive watches a fair lock whose next waiter
// died (queued, then gone without listening): the holder's release still
// finds it dead and evicts it, instead of granting it the lock, as the
// watch listens on the lock's own channel and not on the waiter's.
func TestWatchKeepsNoDeadWaiterAlive(t *testing.T) {
	s := fresh(t)
	ctx := testkit.Ctx(t, 10*time.Second)
	holder := s.client().NewFairMutex("dead")
	lock(t, holder)
	dead := queue.New(s.rdb, "dead", rlock.DefaultFairWaitTimeout, func() string { return "publish" }).Place("dead:1")
	if a, err := dead.Attempt(ctx, s.rdb, time.Minute, 0); err != nil || a.Position != 0 {
		t.Fatalf("dead waiter's attempt: %+v, %v", a, err)
	}
	var out strings.Builder
	frames := start(t, relockCmd(t, "watch", "--json", "--count", "1", "--addr", srv.Addr, "dead"))
	nextLine(t, frames, `"redraw":0,`, &out)
	if err := holder.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	nextLine(t, frames, `"redraw":1,`, &out)
	if held := s.rdb.HGetAll(ctx, "dead").Val(); len(held) != 0 {
		t.Fatalf("the lock went to %v: the dead waiter looked alive to the release", held)
	}
	if n := s.rdb.LLen(ctx, keys.Queue("dead")).Val(); n != 0 {
		t.Fatalf("%d waiters left in line, want the dead one evicted", n)
	}
	drain(frames, &out)
}

// TestWatchSemaphore redraws a semaphore at every release announced on
// its channel, with its count.
func TestWatchSemaphore(t *testing.T) {
	ctx := testkit.Ctx(t, 10*time.Second)
	sem := fresh(t).client().NewSemaphore("pool")
	if _, err := sem.TrySetPermits(ctx, 1); err != nil {
		t.Fatal(err)
	}
	out := start(t, relockCmd(t, "watch", "--addr", srv.Addr, "--kind", "semaphore", "--json", "--count", "1", "pool"))
	var seen strings.Builder
	first := nextLine(t, out, `"redraw":0`, &seen)
	if !strings.Contains(first, `"count":1`) {
		t.Fatalf("first view %s, want the count 1", first)
	}
	if err := sem.Release(ctx, 2); err != nil {
		t.Fatal(err)
	}
	if next := nextLine(t, out, `"redraw":1`, &seen); !strings.Contains(next, `"reason":"message"`) || !strings.Contains(next, `"count":3`) {
		t.Errorf("redraw after a release: %s, want a message and the count 3", next)
	}
}
