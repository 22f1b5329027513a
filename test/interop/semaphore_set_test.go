package interop

import (
	"testing"
	"time"

	"github.com/relock-go/relock/internal/keys"
	"github.com/relock-go/relock/test/testkit"
)

// A Go SetPermits of a permit-expirable semaphore counts a Java lease as
// Redisson's setPermits does, and its announcement wakes a Java waiter:
// with Java holding 1 of 1 permit, SetPermits(2) leaves one available,
// which the Java waiter takes.
func TestSetPermitsCountsJavaLeasesAndWakesJava(t *testing.T) {
	t.Parallel()
	rdb, c := setup(t)
	ctx := testkit.Ctx(t, time.Minute)
	const name = "pes:set"
	holder := Start(t, peerArgs(rdb, "hold", "pesemaphore", name, "--permits", "1", "--hold", "60s")...)
	holder.Await(t, "locked", 30*time.Second)
	s := c.NewPermitExpirableSemaphore(name)
	if n, err := s.AvailablePermits(ctx); n != 0 || err != nil {
		t.Fatalf("AvailablePermits with Java's lease = %d, %v; want 0", n, err)
	}
	waiter := Start(t, peerArgs(rdb, "wait", "pesemaphore", name, "--warmup=false")...)
	waiter.Await(t, "wait-start", 30*time.Second)
	subscribed(t, rdb, keys.SemaphoreChannel(name))
	if err := s.SetPermits(ctx, 2); err != nil {
		t.Fatal(err)
	}
	waiter.Await(t, "acquired", 20*time.Second)
	// The waiter releases its permit after it reports it.
	testkit.Eventually(t, 20*time.Second, "the Java waiter's permit back: 1 available (2 in all, Java's holder leases 1)", func() bool {
		n, err := s.AvailablePermits(ctx)
		return n == 1 && err == nil
	})
}
