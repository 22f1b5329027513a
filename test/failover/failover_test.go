package failover

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/internal/keys"
	"github.com/relock-go/relock/rlock"
	"github.com/relock-go/relock/test/redistest"
	"github.com/relock-go/relock/test/testkit"
	"github.com/relock-go/relock/test/testkit/lockkit"
)

// lease is the watchdog timeout of the contention tests: short, so that a
// hold whose release a failover lost stands in the way for seconds, not
// the default 30 s, and long enough for every hold to outlast the switch.
const lease = 5 * time.Second

// failoverCase is one failover in the middle of contention.
type failoverCase struct {
	name     string
	replicas int
	opts     []rlock.Option
	// acked: opts include WithReplicaAck.
	acked bool
	// failover moves the master and returns the former and the new master
	// once every Sentinel agrees on the new one.
	failover func(ctx context.Context, s *redistest.Sentinel) (old, now string, err error)
	// planned: the former master keeps running (and can be asked).
	planned bool
	// resumeWithin bounds how long after the failover every lock is
	// acquired again.
	resumeWithin time.Duration
}

// plannedFailover is SENTINEL FAILOVER.
func plannedFailover(ctx context.Context, s *redistest.Sentinel) (string, string, error) {
	old, err := s.MasterAddr(ctx)
	if err != nil {
		return "", "", err
	}
	if err := s.Failover(ctx); err != nil {
		return "", "", err
	}
	now, err := s.MasterAddr(ctx)
	return old, now, err
}

// killMaster kills the master and waits for Sentinel to replace it.
func killMaster(ctx context.Context, s *redistest.Sentinel) (string, string, error) {
	old, err := s.KillMaster(ctx)
	if err != nil {
		return "", "", err
	}
	now, err := s.AwaitNewMaster(ctx, old)
	return old, now, err
}

// With three Clients contending for two fenced locks, the master fails
// over. What the library promises, asserted in every case:
//
//   - waiters do not hang: every lock is acquired again, three times,
//     within a bound after the failover (two leases: a hold whose release
//     was lost stands for up to one, and a waiter sleeps at most a lock's
//     TTL between attempts; with WithReplicaAck, until the new master has
//     a replica again);
//   - a holder whose hold is missing on the new master is told: Lost
//     closes, or Unlock returns ErrNotHeld;
//   - Unlock never reports ErrNotHeld while Lost is open;
//   - with WithReplicaAck(1, …) and a planned failover, every hold reported
//     held is on the new master, the token counter there is not below any
//     token granted, and no two owners held the lock at once.
//
// What it cannot promise without WithReplicaAck is measured and logged:
// holds reported held but missing on the new master, overlapping holds,
// repeated and regressing tokens, and writes of holders in good standing
// that the token-checking store rejected.
func TestFailoverDuringContention(t *testing.T) {
	t.Parallel()
	for _, fc := range []failoverCase{
		{name: "planned", replicas: 1, failover: plannedFailover, planned: true, resumeWithin: 2*lease + 5*time.Second},
		{name: "planned/WithReplicaAck", replicas: 1, opts: []rlock.Option{rlock.WithReplicaAck(1, 100*time.Millisecond)}, acked: true,
			failover: plannedFailover, planned: true, resumeWithin: within},
		{name: "killed", replicas: 1, failover: killMaster, resumeWithin: 2*lease + 5*time.Second},
	} {
		t.Run(fc.name, func(t *testing.T) {
			t.Parallel()
			runFailover(t, fc)
		})
	}
}

func runFailover(t *testing.T, fc failoverCase) {
	s := startGroup(t, fc.replicas)
	ctx := testkit.Ctx(t, within)
	opts := append([]rlock.Option{rlock.WithWatchdogTimeout(lease)}, fc.opts...)
	clients := make([]*rlock.Client, workClients)
	for i := range clients {
		clients[i] = lockkit.NewClient(t, s.FailoverClient(t), opts...)
	}
	names := []string{"contended:a", "contended:b"}
	started := time.Now()
	w := startWorkload(t, clients, names, lease, 60)
	before := w.topTokens()

	// One more hold, taken and replicated before the failover, is kept
	// across it.
	across := clients[0].NewFencedMutex("held-across")
	acrossToken, err := across.Lock(ctx)
	if err != nil {
		t.Fatalf("Lock before the failover: %v", err)
	}
	awaitReplicated(ctx, t, s)

	begin := time.Now()
	warmed := len(w.acquisitions())
	old, now, err := fc.failover(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	done := w.countFrom()
	t.Logf("failover %s → %s took %v", old, now, done.Sub(begin).Round(time.Millisecond))

	// Right after the failover: which holds reported held are on the new
	// master, where the token counters stand, where the waiters listen.
	fresh := direct(t, now)
	granted := w.topTokens() // before reading the counters
	read := time.Now()
	counters := make(map[string]int64)
	for _, n := range names {
		c, err := fresh.Get(ctx, keys.Token(n)).Int64()
		if err != nil && !errors.Is(err, redis.Nil) {
			t.Fatalf("token counter of %s on the new master: %v", n, err)
		}
		counters[n] = c
	}
	holds := w.lookUp(func(h *holding) bool {
		ok, err := fresh.HExists(ctx, h.name, h.owner).Result()
		if err != nil {
			t.Errorf("HEXISTS on the new master: %v", err)
		}
		return ok
	})
	subs := listeners(ctx, t, names, fresh, old, fc.planned)
	acrossHeld, err := fresh.HExists(ctx, across.Name(), across.Owner()).Result()
	if err != nil {
		t.Fatalf("HEXISTS on the new master: %v", err)
	}
	acrossLost := testkit.Closed(across.Lost())

	select {
	case <-w.resumed:
	case <-time.After(fc.resumeWithin):
		t.Errorf("locks not acquired %d times each within %v of the failover", w.resume, fc.resumeWithin)
	}
	firsts := w.firstAfter()
	subsLater := listeners(ctx, t, names, fresh, old, fc.planned)
	end := time.Now()
	w.stopWorkload()
	var after int
	for _, h := range w.acquisitions() {
		if !h.at.Before(done) && h.at.Before(end) {
			after++
		}
	}
	t.Logf("acquisitions per second: %.0f before the failover, %.0f in the %v after it",
		float64(warmed)/begin.Sub(started).Seconds(), float64(after)/end.Sub(done).Seconds(), end.Sub(done).Round(time.Millisecond))

	// A hold replicated before the failover is on the new master and stays
	// held. When the master was killed, the failover may outlast the lease
	// (renewals cannot reach Redis meanwhile): then its holder is told.
	acrossErr := across.Unlock(ctx)
	t.Logf("hold replicated before the failover (token %d): on the new master %v, Lost closed %v, Unlock after the failover: %v",
		acrossToken, acrossHeld, acrossLost, acrossErr)
	switch {
	case fc.planned && (!acrossHeld || acrossLost || acrossErr != nil):
		t.Errorf("a hold replicated before a planned failover did not survive it")
	case !acrossHeld && !acrossLost && !errors.Is(acrossErr, rlock.ErrNotHeld):
		t.Errorf("a hold missing on the new master: Lost open and Unlock returned %v", acrossErr)
	}

	// (a) Waiters kept acquiring.
	for _, n := range names {
		if at, ok := firsts[n]; ok {
			t.Logf("%s: first acquired %v after the failover", n, at.Sub(done).Round(time.Millisecond))
		}
	}
	t.Logf("waiters' subscriptions (new master / former master) right after the failover: %s; %v later: %s",
		subs, time.Since(done).Round(time.Millisecond), subsLater)
	if errs := w.lockErrors(); len(errs) > 0 {
		t.Logf("failed Locks (retried): %v", errs)
	}

	// (b) Holders whose hold did not survive were told.
	var missing int
	for _, h := range holds {
		if !h.missing {
			continue
		}
		missing++
		if !told(h) {
			t.Errorf("%s: hold of %s (token %d) missing on the new master, yet Lost stayed open and Unlock returned %v",
				h.name, h.owner, h.token, h.unlockErr)
		}
	}
	t.Logf("(b, c) holds reported held right after the failover: %d, of which missing on the new master: %d", len(holds), missing)

	// (c) Acquisitions reported held that the new master never saw: their
	// token is above its counter (every acquisition increments the counter
	// in the same script).
	var unseen, byLost, byUnlock, untold int
	for _, h := range w.acquisitions() {
		if !h.at.Before(read) || h.token <= counters[h.name] {
			continue
		}
		unseen++
		switch {
		case h.lostBeforeUnlock:
			byLost++
		case errors.Is(h.unlockErr, rlock.ErrNotHeld):
			byUnlock++
		default:
			untold++ // released on the former master before its Client switched
		}
	}
	t.Logf("(c) acquisitions reported held whose token the new master's counter does not reach: %d; holders told by Lost %d, by Unlock's ErrNotHeld %d, never told %d",
		unseen, byLost, byUnlock, untold)

	r := w.hist.Check()
	t.Logf("run: %s", r.Summary())
	if r.NotHeldWithoutLost > 0 {
		t.Errorf("Unlock reported ErrNotHeld with Lost open %d times", r.NotHeldWithoutLost)
	}

	// (d) The token counters.
	for _, n := range names {
		t.Logf("(d) %s: highest token granted before the failover %d, by its end %d; counter on the new master %d",
			n, before[n], granted[n], counters[n])
	}
	for n, st := range w.stores {
		accepted, rejected := st.Counts()
		t.Logf("(d) %s store: %d writes accepted, %d rejected", n, accepted, rejected)
	}

	if !fc.acked || !fc.planned {
		return
	}
	// (c) WithReplicaAck and a planned failover: nothing reported held was lost.
	if missing > 0 || unseen > 0 {
		t.Errorf("with WithReplicaAck, holds reported held were lost: %d missing on the new master right after the failover, %d tokens above its counter", missing, unseen)
	}
	for _, n := range names {
		if counters[n] < granted[n] {
			t.Errorf("%s: token counter on the new master %d, below the granted token %d", n, counters[n], granted[n])
		}
	}
	if v := r.Violations(); v > 0 {
		t.Errorf("with WithReplicaAck, %d broken promises across a planned failover", v)
	}
}

// awaitReplicated returns once every replica of the master has processed
// every write the master has.
func awaitReplicated(ctx context.Context, t *testing.T, s *redistest.Sentinel) {
	t.Helper()
	addr, err := s.MasterAddr(ctx)
	if err != nil {
		t.Fatal(err)
	}
	master := direct(t, addr)
	testkit.Eventually(t, 10*time.Second, "replicas caught up", func() bool {
		info, err := master.Info(ctx, "replication").Result()
		if err != nil {
			return false
		}
		var offset int64 = -1
		caughtUp, replicas := true, 0
		for _, line := range strings.Split(info, "\r\n") {
			if v, ok := strings.CutPrefix(line, "master_repl_offset:"); ok {
				offset, _ = strconv.ParseInt(v, 10, 64)
			}
		}
		for _, line := range strings.Split(info, "\r\n") {
			if !strings.HasPrefix(line, "slave") || !strings.Contains(line, "offset=") {
				continue
			}
			for _, field := range strings.Split(line, ",") {
				if v, ok := strings.CutPrefix(field, "offset="); ok {
					n, _ := strconv.ParseInt(v, 10, 64)
					caughtUp = caughtUp && n >= offset
					replicas++
				}
			}
		}
		return offset >= 0 && replicas > 0 && caughtUp
	})
}

// told reports whether the holder of h learned that it lost the lock:
// Lost had closed when it stopped, or Unlock reported ErrNotHeld.
func told(h *holding) bool {
	return h.lostBeforeUnlock || errors.Is(h.unlockErr, rlock.ErrNotHeld)
}

// listeners describes, per lock, how many connections listen on its
// channel on the new master and, when it still runs, on the former one.
func listeners(ctx context.Context, t *testing.T, names []string, fresh *redis.Client, old string, planned bool) string {
	t.Helper()
	var former *redis.Client
	if planned {
		former = direct(t, old)
	}
	var out string
	for _, n := range names {
		ch := keys.Channel(n)
		out += fmt.Sprintf("%s %d", n, testkit.Subscribers(ctx, fresh, ch))
		if former != nil {
			out += fmt.Sprintf("/%d", testkit.Subscribers(ctx, former, ch))
		}
		out += "; "
	}
	return out
}
