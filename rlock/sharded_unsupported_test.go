package rlock

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// TestShardedPubSubWithoutSPublish: a Client told to use sharded pub/sub
// on a Cluster whose servers lack it (Redis 6.2) fails the first operation
// that publishes or waits with an error saying so, at once, instead of
// leaving a waiter that no release can wake; a Client left to choose uses
// classic pub/sub there. It runs on a server without SPUBLISH (make matrix
// runs the package on Redis 6.2).
func TestShardedPubSubWithoutSPublish(t *testing.T) {
	info, err := srv.Client(t).Do(context.Background(), "command", "info", "spublish").Slice()
	if err != nil {
		t.Fatal(err)
	}
	if len(info) == 1 && info[0] != nil {
		t.Skipf("%s has sharded pub/sub: this test needs a server without SPUBLISH (make matrix runs it on Redis 6.2)", srv.Version())
	}
	_, rdb := startCluster(t)
	ctx := ctxT(t)
	c := newClient(t, rdb, WithShardedPubSub(true))

	ops := map[string]func(ctx context.Context) error{
		"Mutex.Lock": c.NewMutex("sharded:mutex").Lock,
		"FairMutex.TryLock": func(ctx context.Context) error {
			_, err := c.NewFairMutex("sharded:fair").TryLock(ctx, time.Second, 0)
			return err
		},
		"Semaphore.AddPermits": func(ctx context.Context) error {
			return c.NewSemaphore("sharded:semaphore").AddPermits(ctx, 1)
		},
		"CountDownLatch.Await": c.NewCountDownLatch("sharded:latch").Await,
	}
	for name, op := range ops {
		t.Run(name, func(t *testing.T) {
			// Far shorter than ctxT: an answer that only ctx's end brings
			// is the hang this test is about.
			opCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
			defer cancel()
			err := op(opCtx)
			switch {
			case err == nil:
				t.Fatal("no error")
			case errors.Is(err, context.DeadlineExceeded):
				t.Fatalf("the operation waited until its ctx ended: %v", err)
			case !errors.Is(err, errors.ErrUnsupported) || !strings.Contains(err.Error(), "SPUBLISH"):
				t.Fatalf("error %q: want errors.ErrUnsupported, naming SPUBLISH", err)
			}
		})
	}

	// A Client left to choose uses classic pub/sub on the same Cluster.
	auto := newClient(t, rdb)
	m := auto.NewMutex("sharded:auto")
	if err := m.Lock(ctx); err != nil {
		t.Fatalf("Lock of a Client choosing its pub/sub: %v", err)
	}
	if err := m.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
}
