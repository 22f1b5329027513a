package rlock

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/internal/keys"
	"github.com/relock-go/relock/test/redistest"
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

// grantOrder replays the commands a MONITOR saw on a fair lock and counts
// grants that did not go to the earliest waiting arrival (a barging
// newcomer, or a waiter served out of turn), plus evictions and returns to
// the head, none of which a healthy contended run should show.
func grantOrder(cmds [][]string, name string) (grants, outOfOrder, evictions, restores int) {
	queueKey := keys.Queue(name)
	var waiting []string
	prev := ""
	for _, c := range cmds {
		if c[0] != "lua" || len(c) < 3 {
			continue
		}
		switch cmd := c[1]; {
		case cmd == "rpush" && c[2] == queueKey:
			waiting = append(waiting, c[3])
		case cmd == "lpush" && c[2] == queueKey:
			restores++
			waiting = append([]string{c[3]}, waiting...)
		case cmd == "lpop" && c[2] == queueKey && prev == "zrem":
			// Stale-waiter eviction removes the deadline first.
			evictions++
			if len(waiting) > 0 {
				waiting = waiting[1:]
			}
		case cmd == "lrem" && c[2] == queueKey:
			waiting = slices.DeleteFunc(waiting, func(o string) bool { return o == c[4] })
		case cmd == "hset" && c[2] == name && len(c) == 5 && c[4] == "1":
			grants++
			if len(waiting) > 0 && waiting[0] != c[3] {
				outOfOrder++
			}
			waiting = slices.DeleteFunc(waiting, func(o string) bool { return o == c[3] })
		}
		prev = c[1]
	}
	return grants, outOfOrder, evictions, restores
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

	m := startMonitor(t)
	checked := w.run(t, rdb, cs, fair("workload-fair-checked"))
	grants, outOfOrder, evictions, restores := grantOrder(m.stop(t, rdb), "workload-fair-checked")
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
