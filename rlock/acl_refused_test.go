package rlock

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/internal/keys"
)

// A lock whose channel the ACL refuses fails its waiters' Lock at once,
// with the server's word, and only theirs: the subscription connection
// carries on (no replacement), and the waiters of the other channels on it
// are woken by their releases' messages. The refusal also takes the
// connection's probe channel, which the narrowed ACL does not grant
// either: the connection goes on without probes.
func TestLockOnAChannelTheACLRefusesFailsAlone(t *testing.T) {
	admin := newRedis(t)
	ctx := ctxT(t)
	user := okChannelsOnly(t, admin)
	events := newRecorder()
	c := newClient(t, aclClient(t, user), WithHealthCheck(100*time.Millisecond), WithObserver(events))
	holders := newClient(t, admin)
	held := map[string]*Mutex{}
	for _, name := range []string{"lock:ok", "lock:no"} {
		held[name] = holders.NewMutex(name)
		if err := held[name].Lock(ctx); err != nil {
			t.Fatal(err)
		}
	}

	// The first waiter's SUBSCRIBE carries the connection's probe channel
	// too, which the ACL refuses: the waiter's own channel must not be
	// refused with it.
	okDone := make(chan error, 1)
	go func() { okDone <- c.NewMutex("lock:ok").Lock(ctx) }()
	eventually(t, 5*time.Second, "the waiter of lock:ok asleep", func() bool { return hubOf(c).Stats().Sleeping == 1 })
	err := c.NewMutex("lock:no").Lock(ctx)
	if !errors.Is(err, ErrSubscriptionRefused) || !strings.Contains(err.Error(), "NOPERM") || !strings.Contains(err.Error(), "lock:no") {
		t.Fatalf("Lock of a name whose channel the ACL refuses = %v, want ErrSubscriptionRefused with the server's NOPERM, naming the lock", err)
	}
	if n := hubOf(c).Stats().Channels; n > 1 {
		t.Errorf("%d channels subscribed after the refusal, want the one of lock:ok at most", n)
	}

	// The other waiter sleeps on, and its holder's release message
	// wakes it: its lease (30 s) is past ctx's end.
	if n := hubOf(c).Stats().Sleeping; n != 1 {
		t.Fatalf("%d waiters asleep after the refusal, want lock:ok's", n)
	}
	if err := held["lock:ok"].Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-okDone; err != nil {
		t.Fatalf("the waiter of a granted channel beside a refused one: %v", err)
	}
	// Past a few health checks, the connection was never replaced.
	time.Sleep(5 * 100 * time.Millisecond) // time is the subject: health checks must pass
	if r := events.of(EventSubscriptionReplaced); len(r) > 0 {
		t.Fatalf("the subscription connection was replaced %d times (first: %v): a refusal is not a broken connection", len(r), r[0].Err)
	}
}

// Every kind's wait on a channel the ACL refuses fails so, and leaves
// nothing behind: no subscription, and no place in a fair lock's queue.
func TestEveryKindsWaitOnARefusedChannelFails(t *testing.T) {
	admin := newRedis(t)
	ctx := ctxT(t)
	user := okChannelsOnly(t, admin)
	c := newClient(t, aclClient(t, user))
	holders := newClient(t, admin)
	kinds := map[string]struct {
		hold func(name string) error
		wait func(name string) error
	}{
		"Mutex":     {func(n string) error { return holders.NewMutex(n).Lock(ctx) }, func(n string) error { return c.NewMutex(n).Lock(ctx) }},
		"FairMutex": {func(n string) error { return holders.NewFairMutex(n).Lock(ctx) }, func(n string) error { return c.NewFairMutex(n).Lock(ctx) }},
		"RWMutex":   {func(n string) error { return holders.NewRWMutex(n).RLock(ctx) }, func(n string) error { return c.NewRWMutex(n).Lock(ctx) }},
		"Semaphore": {func(n string) error { _, err := holders.NewSemaphore(n).TrySetPermits(ctx, 0); return err },
			func(n string) error { return c.NewSemaphore(n).Acquire(ctx, 1) }},
		"CountDownLatch": {func(n string) error { _, err := holders.NewCountDownLatch(n).TrySetCount(ctx, 1); return err },
			func(n string) error { return c.NewCountDownLatch(n).Await(ctx) }},
	}
	for kind, k := range kinds {
		name := "lock:no:" + kind
		if err := k.hold(name); err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		if err := k.wait(name); !errors.Is(err, ErrSubscriptionRefused) || !strings.Contains(err.Error(), "NOPERM") {
			t.Errorf("%s: wait on a refused channel = %v, want ErrSubscriptionRefused with NOPERM", kind, err)
		}
	}
	if st := hubOf(c).Stats(); st.Channels != 0 || st.Subscriptions != 0 {
		t.Errorf("after the refusals: %+v, want no channel and no subscription", st)
	}
	if n := admin.LLen(ctx, keys.Queue("lock:no:FairMutex")).Val(); n != 0 {
		t.Errorf("%d waiters left in the fair lock's queue, want 0", n)
	}
}

// okChannelsOnly creates the restricted user (aclUser) with its channels
// narrowed to those of the locks whose names begin "lock:ok", and returns
// the options of a client logged in as it.
func okChannelsOnly(t *testing.T, admin *redis.Client) *redis.Options {
	t.Helper()
	user := aclUser(t, admin)
	if err := admin.Do(t.Context(), "ACL", "SETUSER", aclTestUser, "resetchannels", "&redisson_lock__channel:{lock:ok*").Err(); err != nil {
		t.Fatal(err)
	}
	return user
}
