package rlock

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/relock-go/relock/internal/keys"
	"github.com/relock-go/relock/test/testenv"
)

func TestScriptFlushDoesNotBreakLocks(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	// A lease a loaded machine's delays do not eat (renewals every third).
	const lease = time.Second
	c := newClient(t, rdb, WithWatchdogTimeout(lease))
	m := c.NewMutex("flush")
	if err := m.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	if err := rdb.ScriptFlush(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	// Renewals must reload the script: the lock outlives several leases.
	time.Sleep(2 * lease) // time is the subject
	select {
	case <-m.Lost():
		t.Fatal("watchdog lost the lock after SCRIPT FLUSH")
	default:
	}
	for _, step := range []func() error{
		func() error { rdb.ScriptFlush(ctx); return m.Reenter(ctx) },
		func() error { rdb.ScriptFlush(ctx); return m.Unlock(ctx) },
		func() error { rdb.ScriptFlush(ctx); return m.Unlock(ctx) },
	} {
		if err := step(); err != nil {
			t.Fatalf("after SCRIPT FLUSH: %v", err)
		}
	}
	if rdb.Exists(ctx, "flush").Val() != 0 {
		t.Fatal("lock not released")
	}
}

func TestWaitersSurviveKilledSubscriptionConnection(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	holder := newClient(t, rdb).NewMutex("kill")
	if err := holder.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	c := newClient(t, rdb, WithHealthCheck(time.Second))
	const waiters = 3
	done := make(chan error, waiters)
	for range waiters {
		go func() {
			m := c.NewMutex("kill")
			err := m.Lock(ctx)
			if err == nil {
				err = m.Unlock(ctx)
			}
			done <- err
		}()
	}
	channel := keys.Channel("kill")
	eventually(t, 5*time.Second, "waiters asleep", func() bool {
		return hubOf(c).Stats().Subscriptions == waiters && rdb.PubSubNumSub(ctx, channel).Val()[channel] == 1
	})
	if err := rdb.ClientKillByFilter(ctx, "TYPE", "pubsub").Err(); err != nil {
		t.Fatal(err)
	}
	// Unlock at once: the message may be published while no connection
	// listens; waiters must still acquire promptly, not after the 30s lease.
	if err := holder.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	for range waiters {
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("waiters stuck after the subscription connection was killed")
		}
	}
}

func TestCloseStopsWaitersAndGoroutines(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	base := len(testenv.Blocked())
	for _, spin := range []bool{false, true} {
		t.Run(fmt.Sprintf("spin=%v", spin), func(t *testing.T) {
			var opts []Option
			if spin {
				opts = append(opts, WithSpin(ConstantBackoff(10*time.Millisecond)))
			}
			c, err := New(rdb, append(opts, WithWatchdogTimeout(300*time.Millisecond))...)
			if err != nil {
				t.Fatal(err)
			}
			name := fmt.Sprintf("close-%v", spin)
			if err := c.NewMutex(name).Lock(ctx); err != nil {
				t.Fatal(err)
			}
			before := evalCalls(t, rdb)
			done := make(chan error, 1)
			go func() { done <- c.NewMutex(name).Lock(ctx) }()
			// Close while the waiter is waiting: asleep on its subscription,
			// or between attempts of its spin.
			eventually(t, 5*time.Second, "waiter waiting", func() bool {
				if spin {
					return evalCalls(t, rdb)-before >= 2
				}
				return hubOf(c).Stats().Sleeping == 1
			})
			if err := c.Close(); err != nil {
				t.Fatal(err)
			}
			select {
			case err := <-done:
				if !errors.Is(err, ErrClosed) {
					t.Fatalf("blocked Lock after Close = %v, want ErrClosed", err)
				}
			case <-time.After(2 * time.Second):
				t.Fatal("blocked Lock did not return after Close")
			}
			if gs := testenv.Blocked(); len(gs) > base {
				t.Fatalf("%d library goroutines outlive Close:\n%s", len(gs)-base, strings.Join(gs, "\n\n"))
			}
			m := c.NewMutex(name)
			if err := m.Lock(ctx); !errors.Is(err, ErrClosed) {
				t.Fatalf("Lock after Close = %v, want ErrClosed", err)
			}
			if err := m.Unlock(ctx); !errors.Is(err, ErrClosed) {
				t.Fatalf("Unlock after Close = %v, want ErrClosed", err)
			}
			if _, err := m.HoldCount(ctx); !errors.Is(err, ErrClosed) {
				t.Fatalf("HoldCount after Close = %v, want ErrClosed", err)
			}
			if err := c.Close(); err != nil {
				t.Fatalf("second Close = %v", err)
			}
		})
	}
}
