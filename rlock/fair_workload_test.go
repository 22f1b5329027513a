package rlock

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/internal/keys"
	"github.com/relock-go/relock/test/redistest"
	"github.com/relock-go/relock/test/testkit"
)

// workload is a contended run: clients × perClient owners each take one
// lock iterations times and hold it for hold.
type workload struct {
	clients, perClient, iterations int
	hold                           time.Duration
}

// workloadResult is what a run measured.
type workloadResult struct {
	acquisitions int
	elapsed      time.Duration
	// handoffs are the delays from a holder's Unlock call to the Lock
	// return of an owner that was already waiting.
	handoffs []time.Duration
	calls    map[string]int64 // Redis commands run, from INFO commandstats
}

func (w workload) run(t *testing.T, rdb *redis.Client, cs []*Client, newLock func(*Client) lockUnlocker) workloadResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	before, err := redistest.CommandCalls(ctx, rdb)
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu         sync.Mutex
		releasedAt time.Time
		res        workloadResult
		wg         sync.WaitGroup
	)
	start := time.Now()
	for _, c := range cs {
		for range w.perClient {
			l := newLock(c)
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range w.iterations {
					asked := time.Now()
					if err := l.Lock(ctx); err != nil {
						t.Error(err)
						return
					}
					now := time.Now()
					mu.Lock()
					if asked.Before(releasedAt) {
						res.handoffs = append(res.handoffs, now.Sub(releasedAt))
					}
					res.acquisitions++
					mu.Unlock()
					time.Sleep(w.hold) // the critical section
					mu.Lock()
					releasedAt = time.Now()
					mu.Unlock()
					if err := l.Unlock(ctx); err != nil {
						t.Error(err)
						return
					}
				}
			}()
		}
	}
	wg.Wait()
	res.elapsed = time.Since(start)
	after, err := redistest.CommandCalls(ctx, rdb)
	if err != nil {
		t.Fatal(err)
	}
	res.calls = make(map[string]int64)
	for cmd, n := range after {
		if d := n - before[cmd]; d > 0 && cmd != "info" {
			res.calls[cmd] = d
		}
	}
	return res
}

// summary logs a result: hand-off percentiles and commands per acquisition,
// all commands (scripts' included) and client round trips (scripts and
// subscriptions).
func (r workloadResult) summary(t *testing.T, label string) {
	t.Helper()
	hs := slices.Clone(r.handoffs)
	slices.Sort(hs)
	pct := func(p float64) time.Duration {
		if len(hs) == 0 {
			return 0
		}
		return hs[min(len(hs)-1, int(p*float64(len(hs))))]
	}
	var mean time.Duration
	for _, h := range hs {
		mean += h
	}
	if len(hs) > 0 {
		mean /= time.Duration(len(hs))
	}
	var all int64
	for _, n := range r.calls {
		all += n
	}
	// Commands run inside scripts are counted too; the client round trips
	// are the script calls and (un)subscriptions.
	trips := r.calls["evalsha"] + r.calls["eval"] + r.calls["subscribe"] + r.calls["unsubscribe"]
	n := float64(r.acquisitions)
	t.Logf("%-8s %d acquisitions in %v; hand-offs %d: mean %v p50 %v p99 %v; per acquisition: %.2f round trips, %.2f commands; %v",
		label, r.acquisitions, r.elapsed.Round(time.Millisecond), len(hs), mean.Round(time.Microsecond),
		pct(0.5).Round(time.Microsecond), pct(0.99).Round(time.Microsecond), float64(trips)/n, float64(all)/n, r.calls)
}

// grantOrder replays the commands a MONITOR saw on a fair lock, script by
// script (a script's commands follow the client command that ran it), and
// judges each script by what it did to the queue and the lock, whatever
// the order or the commands it did it with: an owner granted the lock (its
// field of the lock's hash written with one hold) and owners taken out of
// the queue. It counts the grants; those that did not go to the earliest
// waiting arrival (an owner granted while not at the head of the queue: a
// barging newcomer, or a waiter served out of turn); evictions (an owner
// taken out of the queue by a script that neither granted it the lock nor
// was run by it, as its leaving is); and returns to the head (an owner put
// back at the front). A command on the queue that the replay does not
// model (one that changes it otherwise than by pushing, popping, removing
// an owner or deleting it) is returned in unknown: the replay would be
// wrong from there on.
func grantOrder(cmds [][]string, name string) (grants, outOfOrder, evictions, restores int, unknown []string) {
	queueKey := keys.Queue(name)
	var waiting []string
	var caller []string          // the client command running the script
	removed := map[string]bool{} // by this script: owner -> it was the head
	granted := map[string]bool{} // by this script
	endScript := func() {
		for owner := range removed {
			if !granted[owner] && !slices.Contains(caller, owner) {
				evictions++
			}
		}
		clear(removed)
		clear(granted)
	}
	remove := func(owner string, head bool) {
		if i := slices.Index(waiting, owner); i >= 0 {
			waiting = slices.Delete(waiting, i, i+1)
			removed[owner] = removed[owner] || head
		}
	}
	for _, c := range cmds {
		if c[0] != "lua" {
			endScript()
			caller = c
			continue
		}
		if len(c) < 3 {
			continue
		}
		switch cmd := strings.ToLower(c[1]); {
		case c[2] == queueKey && cmd == "rpush":
			waiting = append(waiting, c[3:]...)
		case c[2] == queueKey && cmd == "lpush":
			for _, o := range c[3:] {
				restores++
				waiting = append([]string{o}, waiting...)
			}
		case c[2] == queueKey && (cmd == "lpop" || cmd == "rpop"):
			if len(waiting) > 0 {
				i := 0
				if cmd == "rpop" {
					i = len(waiting) - 1
				}
				remove(waiting[i], i == 0)
			}
		case c[2] == queueKey && cmd == "lrem":
			if len(c) > 4 {
				for slices.Contains(waiting, c[4]) {
					remove(c[4], waiting[0] == c[4])
				}
			}
		case c[2] == queueKey && cmd == "del":
			for _, o := range waiting {
				remove(o, false)
			}
		case c[2] == queueKey && !slices.Contains([]string{"lindex", "lrange", "llen", "lpos", "exists", "type", "pttl", "ttl", "pexpire", "expire"}, cmd):
			unknown = append(unknown, strings.Join(c[1:], " "))
		case cmd == "hset" && c[2] == name && len(c) == 5 && c[4] == "1":
			grants++
			owner := c[3]
			wasHead, left := removed[owner]
			// In turn: taken from the head of the queue, or the queue was
			// empty and the owner not in it.
			inTurn := (left && wasHead) || (!left && len(waiting) == 0)
			if !inTurn {
				outOfOrder++
			}
			remove(owner, false)
			granted[owner] = true
		}
	}
	endScript()
	return grants, outOfOrder, evictions, restores, unknown
}

// TestFairMutexWorkload runs 8 owners on each of 2 Clients taking one lock
// with a short hold, fair and non-fair. For the fair lock, a MONITOR replay
// checks that every grant went to the earliest waiting arrival; both runs
// log hand-off delays and commands per acquisition.
func TestFairMutexWorkload(t *testing.T) {
	w := workload{clients: 2, perClient: 8, iterations: 10, hold: 200 * time.Microsecond}
	cs := make([]*Client, w.clients)
	for i := range cs {
		cs[i], _ = fairClient(t)
	}
	_, rdb := fairClient(t)
	fair := func(name string) func(*Client) lockUnlocker {
		return func(c *Client) lockUnlocker { return c.NewFairMutex(name) }
	}

	m := testkit.StartMonitor(t, srv.Addr)
	checked := w.run(t, rdb, cs, fair("workload-fair-checked"))
	grants, outOfOrder, evictions, restores, unknown := grantOrder(m.Stop(t, rdb), "workload-fair-checked")
	if len(unknown) > 0 {
		t.Errorf("the replay does not model these commands on the queue, and cannot judge the run: %q", unknown)
	}
	t.Logf("fair, replayed: %d grants, %d out of arrival order, %d evictions, %d returns to the head", grants, outOfOrder, evictions, restores)
	if grants != checked.acquisitions {
		t.Errorf("MONITOR saw %d grants of %d acquisitions", grants, checked.acquisitions)
	}
	if outOfOrder != 0 || evictions != 0 || restores != 0 {
		t.Errorf("%d grants out of order, %d evictions, %d returns to the head: want none", outOfOrder, evictions, restores)
	}
	assertNoFairKeys(t, rdb, "workload-fair-checked")

	fr := w.run(t, rdb, cs, fair("workload-fair"))
	fr.summary(t, "fair")
	nf := w.run(t, rdb, cs, func(c *Client) lockUnlocker { return c.NewMutex("workload-plain") })
	nf.summary(t, "non-fair")
	for _, r := range []workloadResult{checked, fr, nf} {
		if want := w.clients * w.perClient * w.iterations; r.acquisitions != want {
			t.Errorf("%d acquisitions, want %d", r.acquisitions, want)
		}
	}
	assertNoFairKeys(t, rdb, "workload-fair")
}

// The replay judges a script by what it did, not by the order of its
// commands: an eviction counts whether the script removes the deadline
// before or after the owner, an owner leaving on its own is no eviction, a
// grant to an owner not at the head is out of turn, and a command on the
// queue that the replay does not model is reported.
func TestGrantOrderReplay(t *testing.T) {
	const name = "replayed"
	q, timeouts := keys.Queue(name), keys.Timeout(name)
	script := func(caller string, cmds ...[]string) [][]string {
		out := [][]string{{"client", "evalsha", "sha", "3", name, q, timeouts, caller}}
		for _, c := range cmds {
			out = append(out, append([]string{"lua"}, c...))
		}
		return out
	}
	queued := func(owner string) [][]string { return script(owner, []string{"rpush", q, owner}) }
	for _, tc := range []struct {
		what                                    string
		cmds                                    [][][]string
		grants, outOfOrder, evictions, restores int
		unknown                                 int
	}{
		{"a release grants the head", [][][]string{queued("a"), queued("b"),
			script("h", []string{"lpop", q}, []string{"zrem", timeouts, "a"}, []string{"hset", name, "a", "1"})}, 1, 0, 0, 0, 0},
		{"an eviction, deadline first", [][][]string{queued("a"), queued("b"),
			script("h", []string{"zrem", timeouts, "a"}, []string{"lpop", q}, []string{"lpop", q}, []string{"hset", name, "b", "1"})}, 1, 0, 1, 0, 0},
		{"an eviction, owner first", [][][]string{queued("a"), queued("b"),
			script("h", []string{"lpop", q}, []string{"zrem", timeouts, "a"}, []string{"lindex", q, "0"}, []string{"lpop", q}, []string{"zrem", timeouts, "b"}, []string{"hset", name, "b", "1"})}, 1, 0, 1, 0, 0},
		{"an eviction by another's script, and no grant", [][][]string{queued("a"), queued("b"),
			script("h", []string{"lrem", q, "1", "b"}, []string{"zrem", timeouts, "b"})}, 0, 0, 1, 0, 0},
		{"an owner leaves", [][][]string{queued("a"), queued("b"),
			script("b", []string{"lrem", q, "0", "b"}), script("h", []string{"lpop", q}, []string{"hset", name, "a", "1"})}, 1, 0, 0, 0, 0},
		{"a newcomer barges", [][][]string{queued("a"), script("n", []string{"hset", name, "n", "1"})}, 1, 1, 0, 0, 0},
		{"a waiter behind the head is served", [][][]string{queued("a"), queued("b"),
			script("h", []string{"lrem", q, "1", "b"}, []string{"hset", name, "b", "1"})}, 1, 1, 0, 0, 0},
		{"an owner back at the head", [][][]string{queued("a"), script("b", []string{"lpush", q, "b"})}, 0, 0, 0, 1, 0},
		{"a command the replay does not model", [][][]string{queued("a"), script("h", []string{"ltrim", q, "1", "-1"})}, 0, 0, 0, 0, 1},
	} {
		grants, outOfOrder, evictions, restores, unknown := grantOrder(slices.Concat(tc.cmds...), name)
		if grants != tc.grants || outOfOrder != tc.outOfOrder || evictions != tc.evictions || restores != tc.restores || len(unknown) != tc.unknown {
			t.Errorf("%s: %d grants, %d out of order, %d evictions, %d returns to the head, unknown %q; want %d, %d, %d, %d, %d unknown",
				tc.what, grants, outOfOrder, evictions, restores, unknown, tc.grants, tc.outOfOrder, tc.evictions, tc.restores, tc.unknown)
		}
	}
}
