package chaos

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/relock-go/relock/rlock"
	"github.com/relock-go/relock/test/redistest"
	"github.com/relock-go/relock/test/testkit"
	"github.com/relock-go/relock/test/testkit/lockkit"
)

func TestScriptFlushAtRandomPointsDuringContention(t *testing.T) {
	fresh(t)
	// 480 acquisitions and releases among 12 owners: a loaded machine may
	// need far more than a single wait's bound.
	ctx := testkit.Ctx(t, 6*within)
	p := testkit.StartProxy(t, srv.Addr)
	admin := direct(t)
	// A short lease, so that watchdog renewals run (and meet flushed
	// scripts) too; not so short that a renewal delayed by the load (it
	// would have to be 400 ms late) lets it run out.
	const lease = 600 * time.Millisecond
	const rounds = 40
	stop := make(chan struct{})
	var flushes atomic.Int64
	flusher := make(chan error, 1)
	go func() {
		for {
			select {
			case <-stop:
				flusher <- nil
				return
			case <-time.After(time.Duration(rand.IntN(5000)) * time.Microsecond):
			}
			if err := admin.ScriptFlush(ctx).Err(); err != nil {
				flusher <- err
				return
			}
			flushes.Add(1)
		}
	}()

	// Each owner has a Client of its own: contention between Clients, the
	// case every deployment has (see TestReentryDoesNotWaitBehindWaiters-
	// OfItsClient for owners sharing a Client).
	var g errgroup.Group
	for c := range 2 {
		for _, k := range kinds {
			for w := range 2 {
				locks := lockkit.NewClient(t, proxied(t, p, 0), rlock.WithWatchdogTimeout(lease))
				h := k.new(locks, "flushed:"+k.name)
				g.Go(func() error {
					for i := range rounds {
						// Reentrant, so that partial releases run too.
						for _, take := range []func(context.Context) error{h.Lock, h.Reenter} {
							if err := take(ctx); err != nil {
								return fmt.Errorf("%s client %d owner %d round %d: Lock: %w", k.name, c, w, i, err)
							}
						}
						lost := h.Lost()
						for range 2 {
							if err := h.Unlock(ctx); err != nil {
								return fmt.Errorf("%s client %d owner %d round %d: Unlock: %w", k.name, c, w, i, err)
							}
						}
						if testkit.Closed(lost) {
							return fmt.Errorf("%s client %d owner %d round %d: Lost fired with nothing but script flushes", k.name, c, w, i)
						}
					}
					return nil
				})
			}
		}
	}
	err := g.Wait()
	close(stop)
	if ferr := <-flusher; ferr != nil {
		t.Fatalf("SCRIPT FLUSH: %v", ferr)
	}
	if err != nil {
		t.Fatal(err)
	}
	calls, cerr := redistest.CommandCalls(context.Background(), admin)
	if cerr != nil {
		t.Fatal(cerr)
	}
	t.Logf("%d flushes; scripts reloaded by EVAL %d times", flushes.Load(), calls["eval"])
	if flushes.Load() < 10 || calls["eval"] < 10 {
		t.Fatalf("%d flushes, %d EVALs: the flushes did not meet the operations", flushes.Load(), calls["eval"])
	}
}
