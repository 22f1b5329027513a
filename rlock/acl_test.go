package rlock

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/scripts"
	"github.com/relock-go/relock/test/testenv"
)

// The Redis ACL a relock user needs: its lock names (here those starting
// with "lock:"), the auxiliary keys and channels of every lock, and the
// commands below. Redis 7 checks every command a script runs, with its
// keys and channels, against the user running the script; it also checks
// a script's KEYS, among which the scripts pass the unlock channel. The
// docs/deployment.md documents this ACL (aclLine): keep the two in step.

func TestLocksWorkUnderRestrictedACLUser(t *testing.T) {
	testenv.CheckLeaks(t)
	admin := newRedis(t)
	ctx := ctxT(t)
	// Long leases and fair heartbeats: a waiter wakes within the test's
	// deadline only by the unlock message. A short health check pings the
	// idle subscription connections.
	opts := []Option{WithWatchdogTimeout(time.Minute), WithFairWaitTimeout(time.Minute), WithHealthCheck(50 * time.Millisecond)}
	user := aclUser(t, admin)
	c1 := newClient(t, aclClient(t, user), opts...)
	c2 := newClient(t, aclClient(t, user), opts...)

	t.Run("Mutex", func(t *testing.T) {
		const name = "lock:acl:mutex"
		handOver(ctx, t, admin, c1.NewMutex(name), c2.NewMutex(name), c2)
		m := c1.NewMutex(name)
		if err := m.Lock(ctx); err != nil {
			t.Fatal(err)
		}
		locked, err1 := m.IsLocked(ctx)
		held, err2 := m.IsHeld(ctx)
		ttl, err3 := m.TTL(ctx)
		if err := errors.Join(err1, err2, err3); err != nil || !locked || !held || ttl <= 0 {
			t.Fatalf("IsLocked, IsHeld, TTL = %v, %v, %v, %v", locked, held, ttl, err)
		}
		// A waiter woken by a force-unlock.
		done := make(chan error, 1)
		go func() { done <- c2.NewMutex(name).Lock(ctx) }()
		eventually(t, 5*time.Second, "the waiter sleeps", func() bool { return hubOf(c2).Stats().Sleeping == 1 })
		if ok, err := c1.NewMutex(name).ForceUnlock(ctx); !ok || err != nil {
			t.Fatalf("ForceUnlock = %v, %v", ok, err)
		}
		if err := <-done; err != nil {
			t.Fatalf("waiter after ForceUnlock: %v", err)
		}
	})

	t.Run("FairMutex", func(t *testing.T) {
		const name = "lock:acl:fair"
		handOver(ctx, t, admin, c1.NewFairMutex(name), c2.NewFairMutex(name), c2)
		f := c1.NewFairMutex(name)
		if err := f.Lock(ctx); err != nil {
			t.Fatal(err)
		}
		// A waiter that gives up leaves the queue.
		if ok, err := c2.NewFairMutex(name).TryLock(ctx, 20*time.Millisecond, 0); ok || err != nil {
			t.Fatalf("TryLock of a held fair lock = %v, %v; want false, nil", ok, err)
		}
		if ok, err := f.ForceUnlock(ctx); !ok || err != nil {
			t.Fatalf("ForceUnlock = %v, %v", ok, err)
		}
		assertNoFairKeys(t, admin, name)
	})

	t.Run("FencedMutex", func(t *testing.T) {
		f := c1.NewFencedMutex("lock:acl:fenced")
		token, err := f.Lock(ctx)
		if err != nil || token != 1 {
			t.Fatalf("Lock = %d, %v; want token 1", token, err)
		}
		if got, err := f.Token(ctx); got != token || err != nil {
			t.Fatalf("Token = %d, %v; want %d", got, err, token)
		}
		if err := f.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("RWMutex", func(t *testing.T) {
		const name = "lock:acl:rw"
		r1, r2 := c1.NewRWMutex(name), c2.NewRWMutex(name)
		if err := errors.Join(r1.RLock(ctx), r2.RLock(ctx)); err != nil {
			t.Fatal(err)
		}
		// A writer woken by the last read unlock.
		done := make(chan error, 1)
		w := c2.NewRWMutex(name)
		go func() { done <- w.Lock(ctx) }()
		eventually(t, 5*time.Second, "the writer sleeps", func() bool { return hubOf(c2).Stats().Sleeping == 1 })
		if err := errors.Join(r1.RUnlock(ctx), r2.RUnlock(ctx)); err != nil {
			t.Fatal(err)
		}
		if err := <-done; err != nil {
			t.Fatalf("writer after the readers: %v", err)
		}
		if err := w.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("RateLimiter", func(t *testing.T) {
		const name = "lock:acl:rate"
		l1, l2 := c1.NewRateLimiter(name), c2.NewRateLimiter(name)
		if err := l1.SetRate(ctx, Rate{Limit: 2, Interval: 200 * time.Millisecond, KeepAlive: time.Minute}); err != nil {
			t.Fatal(err)
		}
		if ok, err := l2.AllowN(ctx, 2); !ok || err != nil {
			t.Fatalf("AllowN(2) = %v, %v", ok, err)
		}
		// A waiter sleeps until the permits come back.
		if err := l1.Wait(ctx); err != nil {
			t.Fatal(err)
		}
		n, err1 := l2.Available(ctx)
		_, err2 := l2.Rate(ctx)
		err3 := l1.Release(ctx, 1)
		_, err4 := l1.Inspect(ctx)
		_, err5 := l1.Delete(ctx)
		if err := errors.Join(err1, err2, err3, err4, err5); err != nil || n != 1 {
			t.Fatalf("Available = %d; Available, Rate, Release, Inspect, Delete: %v", n, err)
		}
	})

	t.Run("watchdog", func(t *testing.T) {
		c3 := newClient(t, c1.rdb, WithWatchdogTimeout(300*time.Millisecond))
		m := c3.NewMutex("lock:acl:watchdog")
		if err := m.Lock(ctx); err != nil {
			t.Fatal(err)
		}
		// A renewal shows as the TTL going up between two reads.
		prev := admin.PTTL(ctx, m.Name()).Val()
		eventually(t, 5*time.Second, "a renewal re-arms the lease", func() bool {
			cur := admin.PTTL(ctx, m.Name()).Val()
			renewed := cur > prev
			prev = cur
			return renewed
		})
		select {
		case <-m.Lost():
			t.Fatal("lock lost under the watchdog")
		default:
		}
		if err := m.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
	})

	if t.Failed() {
		return
	}
	// Nothing the library sent was refused, not even a command whose error
	// is ignored.
	for _, e := range aclDenials(t, admin) {
		t.Errorf("refused to %s: %s %q (%s)", e.Username, e.Reason, e.Object, e.Context)
	}
}

func TestLocksWorkUnderRestrictedACLUserOnCluster(t *testing.T) {
	testenv.CheckLeaks(t)
	cluster, _ := startCluster(t)
	ctx := ctxT(t)
	var nodes []*redis.Client
	for _, addr := range cluster.Addrs() {
		node := redis.NewClient(&redis.Options{Addr: addr})
		t.Cleanup(func() { _ = node.Close() })
		setACLUser(t, node, aclClusterCommands...)
		nodes = append(nodes, node)
	}
	user := &redis.ClusterOptions{Addrs: cluster.Addrs(), Username: aclTestUser, Password: aclTestPassword}
	admin := cluster.Client(t)
	for _, sharded := range []bool{true, false} {
		t.Run(fmt.Sprintf("sharded=%v", sharded), func(t *testing.T) {
			skipUnlessSharded(t, sharded)
			var cs [2]*Client
			for i := range cs {
				rdb := redis.NewClusterClient(user)
				t.Cleanup(func() { _ = rdb.Close() })
				cs[i] = newClient(t, rdb, WithWatchdogTimeout(time.Minute), WithFairWaitTimeout(time.Minute), WithShardedPubSub(sharded))
			}
			for _, name := range namesOnEveryMaster(t, cluster) {
				name = "lock:{" + name + "}" // on the master of name
				handOver(ctx, t, admin, cs[0].NewMutex(name), cs[1].NewMutex(name), cs[1])
				handOver(ctx, t, admin, cs[0].NewFairMutex(name), cs[1].NewFairMutex(name), cs[1])
			}
		})
	}
	if t.Failed() {
		return
	}
	for i, node := range nodes {
		for _, e := range aclDenials(t, node) {
			t.Errorf("node %d refused to %s: %s %q (%s)", i, e.Username, e.Reason, e.Object, e.Context)
		}
	}
}

func TestRestrictedACLUserIsRefusedTheRest(t *testing.T) {
	admin := newRedis(t)
	ctx := ctxT(t)
	rdb := aclClient(t, aclUser(t, admin))
	c := newClient(t, rdb)

	// A lock outside the user's key patterns.
	if _, err := c.NewMutex("orders:1").TryLock(ctx, 0, 0); err == nil || !strings.Contains(err.Error(), "NOPERM") {
		t.Errorf("TryLock of a key outside the ACL = %v, want NOPERM", err)
	}
	if n := admin.Exists(ctx, "orders:1").Val(); n != 0 {
		t.Errorf("lock outside the ACL was created")
	}
	// A command outside the set, and a channel outside the patterns.
	if err := rdb.FlushAll(ctx).Err(); err == nil || !strings.Contains(err.Error(), "NOPERM") {
		t.Errorf("FLUSHALL = %v, want NOPERM", err)
	}
	if err := rdb.Publish(ctx, "news", "x").Err(); err == nil || !strings.Contains(err.Error(), "NOPERM") {
		t.Errorf("PUBLISH news = %v, want NOPERM", err)
	}

	var got []string
	for _, e := range aclDenials(t, admin) {
		got = append(got, e.Reason+" "+e.Object)
	}
	for _, want := range []string{"key orders:1", "command flushall", "channel news"} {
		if !slices.Contains(got, want) {
			t.Errorf("ACL log %q lacks %q", got, want)
		}
	}
}

// TestACLCoversScriptCommands fails when a script calls a command that the
// ACL does not grant: update aclCommands and the ACL line of docs/deployment.md.
func TestACLCoversScriptCommands(t *testing.T) {
	files, err := filepath.Glob("../scripts/*.lua")
	if err != nil {
		t.Fatal(err)
	}
	fair, err := filepath.Glob("../queue/*.lua")
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, fair...)
	if len(files) < 5 {
		t.Fatalf("found only the scripts %v", files)
	}
	call := regexp.MustCompile(`redis\.p?call\(\s*['"]([A-Za-z]+)['"]`)
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range call.FindAllStringSubmatch(string(src), -1) {
			cmd := strings.ToLower(m[1])
			if cmd == "pubsub" {
				// The scripts count a channel's subscribers (listeners.lua):
				// PUBSUB NUMSUB, or SHARDNUMSUB beside SPUBLISH on a cluster.
				cmd = "pubsub|numsub"
			}
			if !slices.Contains(aclCommands, cmd) {
				t.Errorf("%s calls %s, which the ACL does not grant", f, cmd)
			}
		}
	}
	// The publish command reaches the scripts as an argument.
	if !slices.Contains(aclCommands, scripts.Publish) {
		t.Errorf("the ACL does not grant %s", scripts.Publish)
	}
	// docs/deployment.md shows the same ACL.
	readme, err := os.ReadFile("../docs/deployment.md")
	if err != nil {
		t.Fatal(err)
	}
	if line := strings.Join(aclLine("relock", "PASSWORD"), " "); !strings.Contains(string(readme), line) {
		t.Errorf("docs/deployment.md lacks the ACL line\n%s", line)
	}
}
