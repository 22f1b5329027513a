package chaos

import (
	"testing"
	"time"

	"github.com/relock-go/relock/rlock"
	"github.com/relock-go/relock/test/testkit"
	"github.com/relock-go/relock/test/testkit/lockkit"
)

func TestReentryDoesNotWaitBehindWaitersOfItsClient(t *testing.T) {
	fresh(t)
	ctx := testkit.Ctx(t, within)
	const lease = 2 * time.Second
	c := lockkit.NewClient(t, direct(t), rlock.WithWatchdogTimeout(lease))
	holder, waiter := c.NewMutex("reentry"), c.NewMutex("reentry")
	if err := holder.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	waiting := acquireAsync(ctx, waiter)
	admin := direct(t)
	testkit.Eventually(t, within, "the other owner waits", func() bool {
		n, err := admin.PubSubNumSub(ctx, "redisson_lock__channel:{reentry}").Result()
		return err == nil && n["redisson_lock__channel:{reentry}"] == 1
	})
	start := time.Now()
	if err := holder.Reenter(ctx); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > lease/4 {
		t.Fatalf("Reenter took %v while another owner of the Client waited (lease %v)", d, lease)
	}
	for range 2 {
		if err := holder.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if err := <-waiting; err != nil {
		t.Fatal(err)
	}
	if err := waiter.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
}
