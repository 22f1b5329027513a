package chaos

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/relock-go/relock/internal/keys"
	"github.com/relock-go/relock/rlock"
	"github.com/relock-go/relock/test/faultproxy"
	"github.com/relock-go/relock/test/testkit"
	"github.com/relock-go/relock/test/testkit/lockkit"
)

// retrying returns an owner of name of kind k behind p, and the proxy's
// client retries a command whose reply is lost (go-redis's default,
// MaxRetries 3) unless noRetries. The Client polls instead of
// subscribing, so that the owner's commands are the only traffic through
// p and a dropped reply is always theirs. Before it returns, another owner
// of the Client locks and unlocks twice over, so that the connection is
// open and the scripts loaded: a later dropped reply is that of the
// command that runs the script, not of a handshake or a NOSCRIPT error.
func retrying(t *testing.T, k kind, p *faultproxy.Proxy, name string, noRetries bool) handle {
	t.Helper()
	retries := 0
	if noRetries {
		retries = -1
	}
	c := lockkit.NewClient(t, proxied(t, p, retries), rlock.WithSpin(rlock.ConstantBackoff(5*time.Millisecond)))
	warm := k.new(c, name+":warm-up")
	ctx := testkit.Ctx(t, within)
	for _, op := range []func(context.Context) error{warm.Lock, warm.Reenter, warm.Unlock, warm.Unlock} {
		if err := op(ctx); err != nil {
			t.Fatalf("warm-up: %v", err)
		}
	}
	return k.new(c, name)
}

// holdCount is h's hold count as Redis has it.
func holdCount(t *testing.T, h handle) int {
	t.Helper()
	n, err := h.HoldCount(testkit.Ctx(t, within))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// lostReply runs op with the reply to its next command dropped, and fails
// the test unless op took at least a command timeout: the reply it waited
// for was lost.
func lostReply(t *testing.T, p *faultproxy.Proxy, op func() error) error {
	t.Helper()
	p.DropReplies(1)
	start := time.Now()
	err := op()
	if d := time.Since(start); d < cmdTimeout {
		t.Fatalf("operation returned after %v (%v): its reply was not the one dropped", d, err)
	}
	p.DropReplies(0)
	return err
}

// Each case has its own proxy, Clients and lock (named after the case),
// so the cases run in parallel; the leak check covers them all.
func TestUnlockWhoseReplyIsLostIsAppliedOnce(t *testing.T) {
	fresh(t)
	for _, k := range kinds {
		t.Run(k.name+"/go-redis retries an inner unlock", func(t *testing.T) {
			t.Parallel()
			ctx := testkit.Ctx(t, within)
			p := testkit.StartProxy(t, srv.Addr)
			a := retrying(t, k, p, t.Name(), false)
			if err := a.Lock(ctx); err != nil {
				t.Fatal(err)
			}
			if err := a.Reenter(ctx); err != nil {
				t.Fatal(err)
			}
			if err := lostReply(t, p, func() error { return a.Unlock(ctx) }); err != nil {
				t.Fatalf("Unlock retried after a lost reply: %v", err)
			}
			if n := holdCount(t, a); n != 1 {
				t.Fatalf("hold count %d after one Unlock of two holds, want 1", n)
			}
			if err := a.Unlock(ctx); err != nil {
				t.Fatalf("last Unlock: %v", err)
			}
			if n := holdCount(t, a); n != 0 {
				t.Fatalf("hold count %d after the last Unlock", n)
			}
		})

		t.Run(k.name+"/go-redis retries the last unlock after another owner took over", func(t *testing.T) {
			t.Parallel()
			ctx := testkit.Ctx(t, within)
			p := testkit.StartProxy(t, srv.Addr)
			a := retrying(t, k, p, t.Name(), false)
			b := k.new(lockkit.NewClient(t, direct(t)), t.Name())
			if err := a.Lock(ctx); err != nil {
				t.Fatal(err)
			}
			bDone := acquireAsync(ctx, b)
			err := lostReply(t, p, func() error { return a.Unlock(ctx) })
			if err != nil {
				t.Fatalf("Unlock retried after a lost reply, the lock meanwhile taken by another owner: %v; want success", err)
			}
			if err := <-bDone; err != nil {
				t.Fatal(err)
			}
			if n := holdCount(t, b); n != 1 {
				t.Fatalf("new owner's hold count %d after the old owner's retried Unlock, want 1", n)
			}
		})

		t.Run(k.name+"/caller retries a failed last unlock after another owner took over", func(t *testing.T) {
			// A Mutex's last release is sent once, with no latch: the
			// repetition finds the lock another's and must still succeed,
			// releasing nothing of the new owner's.
			t.Parallel()
			ctx := testkit.Ctx(t, within)
			p := testkit.StartProxy(t, srv.Addr)
			a := retrying(t, k, p, t.Name(), true)
			b := k.new(lockkit.NewClient(t, direct(t)), t.Name())
			if err := a.Lock(ctx); err != nil {
				t.Fatal(err)
			}
			bDone := acquireAsync(ctx, b)
			if err := lostReply(t, p, func() error { return a.Unlock(ctx) }); err == nil {
				t.Fatal("Unlock with its reply lost and no retries succeeded")
			}
			if err := <-bDone; err != nil {
				t.Fatal(err)
			}
			if err := a.Unlock(ctx); err != nil {
				t.Fatalf("repeated Unlock, the lock meanwhile taken by another owner: %v; want success", err)
			}
			if n := holdCount(t, b); n != 1 {
				t.Fatalf("new owner's hold count %d after the old owner's repeated Unlock, want 1", n)
			}
		})

		t.Run(k.name+"/caller retries a failed inner unlock", func(t *testing.T) {
			t.Parallel()
			ctx := testkit.Ctx(t, within)
			p := testkit.StartProxy(t, srv.Addr)
			a := retrying(t, k, p, t.Name(), true)
			if err := a.Lock(ctx); err != nil {
				t.Fatal(err)
			}
			if err := a.Reenter(ctx); err != nil {
				t.Fatal(err)
			}
			if err := lostReply(t, p, func() error { return a.Unlock(ctx) }); err == nil {
				t.Fatal("Unlock with its reply lost and no retries succeeded")
			}
			// The caller cannot tell whether the Unlock ran, and repeats it.
			if err := a.Unlock(ctx); err != nil {
				t.Fatalf("repeated Unlock: %v", err)
			}
			if n := holdCount(t, a); n != 1 {
				t.Fatalf("hold count %d after an Unlock and its repetition, want 1: the repetition was applied again", n)
			}
		})
	}
}

// Its cases run in parallel, as TestUnlockWhoseReplyIsLostIsAppliedOnce's.
func TestAcquireWhoseReplyIsLostIsCountedOnce(t *testing.T) {
	fresh(t)
	for _, k := range kinds {
		for _, tc := range []struct {
			name      string
			before    int  // holds taken before the lost reply
			noRetries bool // the caller, not go-redis, repeats the Lock
		}{
			{"go-redis retries a first acquisition", 0, false},
			{"go-redis retries a reentrant acquisition", 1, false},
			{"caller retries a failed first acquisition", 0, true},
			{"caller retries a failed reentrant acquisition", 1, true},
		} {
			t.Run(k.name+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				ctx := testkit.Ctx(t, within)
				p := testkit.StartProxy(t, srv.Addr)
				a := retrying(t, k, p, t.Name(), tc.noRetries)
				acquire := a.Lock
				for range tc.before {
					if err := a.Lock(ctx); err != nil {
						t.Fatal(err)
					}
					acquire = a.Reenter
				}
				err := lostReply(t, p, func() error { return acquire(ctx) })
				if tc.noRetries {
					if err == nil {
						t.Fatal("acquisition with its reply lost and no retries succeeded")
					}
					if err := acquire(ctx); err != nil {
						t.Fatalf("repeated Lock: %v", err)
					}
				} else if err != nil {
					t.Fatalf("acquisition retried after a lost reply: %v", err)
				}
				if n, want := holdCount(t, a), tc.before+1; n != want {
					t.Fatalf("hold count %d, want %d: the acquisition whose reply was lost was counted twice", n, want)
				}
				if k.name == "FencedMutex" {
					// One token per first hold, not per attempt: a
					// re-entry keeps the token of the hold it adds to.
					if n, err := direct(t).Get(ctx, keys.Token(t.Name())).Int(); err != nil || n != 1 {
						t.Fatalf("token counter = %d, %v; want 1", n, err)
					}
				}
				for range tc.before + 1 {
					if err := a.Unlock(ctx); err != nil {
						t.Fatal(err)
					}
				}
				if held, err := a.IsHeld(ctx); err != nil || held {
					t.Fatalf("IsHeld = %v, %v after as many Unlocks as Locks", held, err)
				}
				if err := a.Unlock(ctx); !errors.Is(err, rlock.ErrNotHeld) {
					t.Fatalf("one Unlock too many = %v, want ErrNotHeld", err)
				}
			})
		}
	}
}
