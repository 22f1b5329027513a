package rlock

import (
	"errors"
	"strings"
	"testing"
	"time"
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
	user := aclUser(t, admin)
	if err := admin.Do(ctx, "ACL", "SETUSER", aclTestUser, "resetchannels", "&redisson_lock__channel:{lock:ok*").Err(); err != nil {
		t.Fatal(err)
	}
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
	ping := time.After(5 * 100 * time.Millisecond) // time is the subject: health checks must pass
	<-ping
	if r := events.of(EventSubscriptionReplaced); len(r) > 0 {
		t.Fatalf("the subscription connection was replaced %d times (first: %v): a refusal is not a broken connection", len(r), r[0].Err)
	}
}
