package rlock

import (
	"context"
	"errors"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/internal/keys"
	"github.com/relock-go/relock/test/testenv"
)

// FuzzLockNames runs lock names that reach Redis as keys, channels and
// script arguments through a real redis-server: Mutex and FairMutex lock,
// re-enter, hand over to a waiter of another Client by pub/sub, and unlock,
// leaving Redis as they found it and another lock untouched.
//
// The seed corpus runs with every `go test`. To search for new names (each
// fuzzing worker starts its own redis-server):
//
//	go test -run '^$' -fuzz '^FuzzLockNames$' -fuzztime 60s ./rlock
//
// Failing names are saved under testdata/fuzz/FuzzLockNames/ and replayed
// by every later `go test` until removed.
func FuzzLockNames(f *testing.F) {
	for _, name := range []string{
		"orders:42",
		"{orders}:42", "a{b}c", "}{a}", "{a}{b}", // hash tags
		"{}", "a{}b", "{", "}", "a}b", "a{b", // braces without a tag
		"ünïcode ✓ 锁", "\xff\xfe invalid UTF-8",
		"line\nbreak\r\n", "nul\x00byte", "\x00",
		"*", "?[a-z]", "redisson_lock__channel:{x}", // glob characters, a Redisson-like name
		strings.Repeat("n", 64<<10),
		"",
	} {
		f.Add(name)
	}

	// Two Clients, each with its own connections, for the whole run: a
	// hand-over between them goes through Redis pub/sub. With a long
	// watchdog timeout (the waiter's retry after the holder's TTL) and a
	// long fair wait timeout (the fair waiter's heartbeat), a missed wake-up
	// would leave the waiter asleep far beyond the test's deadline.
	clients := make([]*Client, 2)
	for i := range clients {
		c, err := New(srv.Client(f), WithWatchdogTimeout(time.Minute), WithFairWaitTimeout(time.Minute))
		if err != nil {
			f.Fatal(err)
		}
		f.Cleanup(func() { _ = c.Close() })
		clients[i] = c
	}
	admin := srv.Client(f)

	f.Fuzz(func(t *testing.T, name string) {
		const other = "fuzz:other lock"
		if name == other {
			t.Skip("the name of the bystander lock")
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		srv.Reset(t)
		c1, c2 := clients[0], clients[1]

		if checkName(name) != nil {
			// Refused alike on every topology (TestNamesRefusedOnEveryTopology).
			if err := c1.NewMutex(name).Lock(ctx); !errors.Is(err, ErrInvalidName) {
				t.Fatalf("Lock(%q) = %v, want ErrInvalidName", name, err)
			}
			return
		}

		// A bystander lock with a fixed lease: no renewal touches it.
		bystander := c1.NewMutex(other)
		if err := bystander.LockWithLease(ctx, time.Minute); err != nil {
			t.Fatal(err)
		}
		before := admin.HGetAll(ctx, other).Val()

		handOver(ctx, t, admin, c1.NewMutex(name), c2.NewMutex(name), c2)
		assertOnlyLatchesLeft(ctx, t, admin, name, other)
		handOver(ctx, t, admin, c1.NewFairMutex(name), c2.NewFairMutex(name), c2)
		assertOnlyLatchesLeft(ctx, t, admin, name, other)

		if after := admin.HGetAll(ctx, other).Val(); !maps.Equal(before, after) {
			t.Fatalf("bystander lock %q changed from %v to %v", other, before, after)
		}
		if ttl := admin.PTTL(ctx, other).Val(); ttl <= 0 || ttl > time.Minute {
			t.Fatalf("bystander lock's TTL = %v, want its untouched lease", ttl)
		}
		if err := bystander.Unlock(ctx); err != nil {
			t.Fatalf("bystander Unlock: %v", err)
		}
	})
}

// fuzzLock is what the fuzz target does with a Mutex or a FairMutex.
type fuzzLock interface {
	Name() string
	Owner() string
	Lock(context.Context) error
	Reenter(context.Context) error
	Unlock(context.Context) error
	HoldCount(context.Context) (int, error)
}

// handOver has holder lock name and re-enter it, checks the lock hash at exactly the
// name, then has waiter (of the Client wc) wait for it, unlocks twice so
// the unlock message wakes the waiter, and releases the waiter's hold.
func handOver(ctx context.Context, t *testing.T, admin redis.Cmdable, holder, waiter fuzzLock, wc *Client) {
	t.Helper()
	name := holder.Name()
	for want := 1; want <= 2; want++ {
		take := holder.Lock
		if want > 1 {
			take = holder.Reenter
		}
		if err := take(ctx); err != nil {
			t.Fatalf("Lock #%d: %v", want, err)
		}
		if n, err := holder.HoldCount(ctx); err != nil || n != want {
			t.Fatalf("HoldCount = %d, %v; want %d", n, err, want)
		}
	}
	if got := admin.HGetAll(ctx, name).Val(); len(got) != 1 || got[holder.Owner()] != "2" {
		t.Fatalf("hash at the name = %v, want {%s: 2}", got, holder.Owner())
	}

	done := make(chan error, 1)
	go func() { done <- waiter.Lock(ctx) }()
	// Only the hub knows when the waiter sleeps on its subscription.
	eventually(t, 5*time.Second, "the waiter sleeps on its subscription", func() bool {
		return hubOf(wc).Stats().Sleeping == 1
	})
	for range 2 {
		if err := holder.Unlock(ctx); err != nil {
			t.Fatalf("Unlock: %v", err)
		}
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("waiter's Lock: %v", err)
		}
	case <-ctx.Done():
		t.Fatal("the waiter was not woken by the unlock")
	}
	if n, err := waiter.HoldCount(ctx); err != nil || n != 1 {
		t.Fatalf("waiter's HoldCount = %d, %v; want 1", n, err)
	}
	if n, err := holder.HoldCount(ctx); err != nil || n != 0 {
		t.Fatalf("holder's HoldCount after its Unlocks = %d, %v; want 0", n, err)
	}
	if err := waiter.Unlock(ctx); err != nil {
		t.Fatalf("waiter's Unlock: %v", err)
	}
}

// assertOnlyLatchesLeft fails unless Redis holds the bystander lock and,
// besides it, only unlock latches of name, which expire.
func assertOnlyLatchesLeft(ctx context.Context, t *testing.T, admin *redis.Client, name, bystander string) {
	t.Helper()
	all, err := admin.Keys(ctx, "*").Result()
	if err != nil {
		t.Fatal(err)
	}
	// Redisson's latch key: the channel's form of the name, another prefix.
	latchPrefix := "redisson_unlock_latch" + strings.TrimPrefix(keys.Channel(name), "redisson_lock__channel") + ":"
	for _, k := range all {
		if k == bystander {
			continue
		}
		if !strings.HasPrefix(k, latchPrefix) {
			t.Fatalf("key %.200q left after the last Unlock of %.200q", k, name)
		}
		if ttl := admin.PTTL(ctx, k).Val(); ttl <= 0 {
			t.Fatalf("unlock latch %.200q has no TTL (%v)", k, ttl)
		}
	}
}

// TestHandOverLeavesNoSubscriptionOrGoroutine checks what the fuzz target
// cannot check per input, since its Clients live for the whole run: once
// the hand-overs are done and the Clients closed, no subscription and no
// goroutine of theirs is left.
func TestHandOverLeavesNoSubscriptionOrGoroutine(t *testing.T) {
	testenv.CheckLeaks(t)
	rdb := newRedis(t)
	ctx := ctxT(t)
	opts := []Option{WithWatchdogTimeout(time.Minute), WithFairWaitTimeout(time.Minute)}
	c1, c2 := newClient(t, rdb, opts...), newClient(t, srv.Client(t), opts...)
	handOver(ctx, t, rdb, c1.NewMutex("a{b}c"), c2.NewMutex("a{b}c"), c2)
	handOver(ctx, t, rdb, c1.NewFairMutex("nul\x00{byte}"), c2.NewFairMutex("nul\x00{byte}"), c2)
	// An open Client keeps its probe channel, and a FairMutex the
	// subscription of its last wait for a heartbeat: close them.
	c1.Close()
	c2.Close()
	eventually(t, 5*time.Second, "every channel unsubscribed", func() bool {
		return rdb.PubSubNumPat(ctx).Val() == 0 && len(rdb.PubSubChannels(ctx, "*").Val()) == 0
	})
}
