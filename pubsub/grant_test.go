package pubsub

import (
	"context"
	"testing"
	"time"

	"github.com/relock-go/relock/internal/keys"
)

// A grant told in the process (Subscription.Grant) wakes its waiter as
// the grant message would, and the message, coming after, neither wakes
// it again nor grants again; a grant heard first is not told again.
func TestGrantToldInProcessOrHeardIsTakenOnce(t *testing.T) {
	h, mr, _ := newHub(t)
	sub := subscribe(t, h, "ch:owner")
	pending := func() bool {
		woken, err := sub.Wait(context.Background(), 0)
		if err != nil {
			t.Fatal(err)
		}
		return woken
	}

	told := keys.GrantPrefix + "7"
	done := waitAsync(sub, time.Minute)
	untilSleeping(t, h, 1)
	sub.Grant(told)
	awaitWoken(t, done, "the waiter told its grant")
	if !sub.TakeGrant(told) {
		t.Fatal("the grant told is not the waiter's to take")
	}
	mr.Publish("ch:owner", told)
	handled(t, h, mr)
	if pending() || sub.TakeGrant(told) {
		t.Fatal("the grant's message, after the grant was told, woke the waiter or granted again")
	}

	heard := keys.GrantPrefix + "8"
	done = waitAsync(sub, time.Minute)
	untilSleeping(t, h, 1)
	mr.Publish("ch:owner", heard)
	awaitWoken(t, done, "the waiter that heard its grant")
	sub.Grant(heard)
	if pending() {
		t.Fatal("a grant told after its message was heard woke the waiter again")
	}
	if !sub.TakeGrant(heard) || sub.TakeGrant(heard) {
		t.Fatal("the grant heard is not taken exactly once")
	}
}
