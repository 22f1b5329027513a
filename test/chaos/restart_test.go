package chaos

import (
	"errors"
	"testing"
	"time"

	"github.com/relock-go/relock/rlock"
	"github.com/relock-go/relock/test/testkit"
	"github.com/relock-go/relock/test/testkit/lockkit"
)

func TestRedisRestartWithoutPersistence(t *testing.T) {
	// The server comes back empty: the lock is gone without an unlock
	// message, and every connection was cut. The holder must learn it
	// lost the lock, and the waiters must take it in turn.
	const lease = 600 * time.Millisecond
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			// No per-test leak check: the restarted server's process is
			// watched by a new goroutine of redistest that lives on. The
			// package's own check (TestMain) still covers this test.
			srv.Reset(t)
			ctx := testkit.Ctx(t, within)
			p := testkit.StartProxy(t, srv.Addr)
			const name = "restarted"
			opts := []rlock.Option{rlock.WithWatchdogTimeout(lease), rlock.WithHealthCheck(lease / 3), rlock.WithFairWaitTimeout(lease)}
			holder := k.new(lockkit.NewClient(t, proxied(t, p, 0), opts...), name)
			if err := holder.Lock(ctx); err != nil {
				t.Fatal(err)
			}
			lost := holder.Lost()
			const n = 2
			waiters := make([]handle, n)
			done := make(chan int, n)
			errs := make(chan error, n)
			for i := range waiters {
				waiters[i] = k.new(lockkit.NewClient(t, proxied(t, p, 0), opts...), name)
				go func() {
					if err := waiters[i].Lock(ctx); err != nil {
						errs <- err
						return
					}
					done <- i
				}()
			}
			admin := direct(t)
			testkit.Eventually(t, within, "every waiter subscribed", func() bool {
				chans, err := admin.PubSubChannels(ctx, "*").Result()
				if err != nil || len(chans) == 0 {
					return false
				}
				subs, err := admin.PubSubNumSub(ctx, chans...).Result()
				var total int64
				for _, c := range subs {
					total += c
				}
				return err == nil && total >= n
			})

			if err := srv.Restart(); err != nil {
				t.Fatal(err)
			}
			restarted := time.Now()
			lostWithin(t, lost, lease+handoffBound, "holder after a restart lost its lock")
			for range n {
				select {
				case i := <-done:
					if err := waiters[i].Unlock(ctx); err != nil {
						t.Fatalf("waiter %d Unlock: %v", i, err)
					}
				case err := <-errs:
					t.Fatalf("waiter Lock: %v", err)
				case <-time.After(lease + handoffBound):
					t.Fatalf("waiters stuck %v after the restart", time.Since(restarted))
				}
			}
			if err := holder.Unlock(ctx); !errors.Is(err, rlock.ErrNotHeld) {
				t.Fatalf("holder's Unlock after the restart = %v, want ErrNotHeld", err)
			}
		})
	}
}
