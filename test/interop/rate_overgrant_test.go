package interop

import (
	"testing"
	"time"

	"github.com/relock-go/relock/rlock"
	"github.com/relock-go/relock/test/testkit"
)

// What Redisson 3.52 writes beside relock never lets a Go acquisition
// over the limit: a release(n), which raises the count and leaves the
// members (here one of many permits, Go's AllowN); members of 0 permits
// (tryAcquire(0)); a per-client rate lowered by another client.
func TestRateLimiterJavaWritesGrantNothingOver(t *testing.T) {
	t.Parallel()
	rdb, c := setup(t)
	ctx := testkit.Ctx(t, 2*time.Minute)
	java := StartRateWorker(t, rdb.Options().Addr)
	take := func(name, permits string) bool {
		t.Helper()
		java.Send(t, "take", "--name", name, "--permits", permits)
		return java.Await(t, "take", time.Minute)["granted"] == true
	}

	t.Run("release", func(t *testing.T) {
		l := c.NewRateLimiter("rate:release")
		if err := l.SetRate(ctx, rlock.Rate{Limit: 10, Interval: time.Minute}); err != nil {
			t.Fatal(err)
		}
		if ok, err := l.AllowN(ctx, 10); !ok || err != nil {
			t.Fatalf("AllowN(10) of 10 = %v, %v", ok, err)
		}
		java.Send(t, "release", "--name", "rate:release", "--permits", "5")
		java.Await(t, "release", time.Minute)
		if ok, err := l.AllowN(ctx, 5); ok || err != nil {
			t.Fatalf("AllowN(5) after Java's release(5) = %v, %v; want false: 15 in a minute of 10", ok, err)
		}
		if n, err := l.Available(ctx); n != 0 || err != nil {
			t.Fatalf("Available = %d, %v; want 0", n, err)
		}
	})

	t.Run("zero", func(t *testing.T) {
		l := c.NewRateLimiter("rate:zero")
		if err := l.SetRate(ctx, rlock.Rate{Limit: 2, Interval: time.Minute}); err != nil {
			t.Fatal(err)
		}
		take("rate:zero", "0")
		if ok, err := l.AllowN(ctx, 2); !ok || err != nil {
			t.Fatalf("AllowN(2) of 2 = %v, %v", ok, err)
		}
		if ok, err := l.Allow(ctx); ok || err != nil {
			t.Fatalf("Allow with none left = %v, %v", ok, err)
		}
		if ok, err := l.TryWait(ctx, 1, 300*time.Millisecond); ok || err != nil {
			t.Fatalf("TryWait(1, 300ms) beside Java's tryAcquire(0) = %v, %v; want false: 3 in a minute of 2", ok, err)
		}
	})

	t.Run("per-client", func(t *testing.T) {
		const name = "rate:client"
		l := c.NewRateLimiter(name)
		java.Send(t, "set", "--name", name, "--rate", "10", "--interval", "60000", "--type", "per_client")
		java.Await(t, "set", time.Minute)
		if ok, err := l.AllowN(ctx, 5); !ok || err != nil {
			t.Fatalf("AllowN(5) of Go's own 10 = %v, %v", ok, err)
		}
		java.Send(t, "set", "--name", name, "--rate", "6", "--interval", "60000", "--type", "per_client")
		java.Await(t, "set", time.Minute)
		if ok, err := l.AllowN(ctx, 2); ok || err != nil {
			t.Fatalf("AllowN(2) after Java lowered the rate to 6 = %v, %v; want false: 7 in a minute of 6", ok, err)
		}
		if n, err := l.Available(ctx); n != 1 || err != nil {
			t.Fatalf("Available = %d, %v; want 1", n, err)
		}
		if !take(name, "6") {
			t.Fatal("Java's tryAcquire(6) of its own 6 refused")
		}
	})
}
