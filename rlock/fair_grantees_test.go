package rlock

import (
	"context"
	"testing"

	"github.com/relock-go/relock/internal/keys"
	"github.com/relock-go/relock/pubsub"
	"github.com/relock-go/relock/test/testkit"
)

// A release's reply tells the wait it granted, not whatever wait its owner
// has now: a reply read after the owner's granted wait ended (it heard the
// message first, held the lock, released it) and a new one began must not
// tell the new wait, which nothing granted.
func TestGrantTellsTheWaitGrantedNotTheOwnersNext(t *testing.T) {
	_, rdb := testkit.Miniredis(t)
	h := pubsub.New(rdb, pubsub.Options{})
	t.Cleanup(func() { _ = h.Close() })
	sub, err := h.Subscribe(context.Background(), "ch:owner")
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	told := func() bool {
		woken, err := sub.Wait(context.Background(), 0)
		if err != nil {
			t.Fatal(err)
		}
		return woken
	}

	var g grantees
	earlier, next := keys.GrantPrefix+"5", keys.GrantPrefix+"6"
	g.add("owner", sub, next)
	g.tell("owner", earlier)
	if told() || sub.TakeGrant(earlier) || sub.TakeGrant(next) {
		t.Fatal("a grant of the owner's earlier wait was told to its next wait")
	}
	g.tell("owner", next)
	if !told() || !sub.TakeGrant(next) {
		t.Fatal("the wait granted was not told")
	}
	last := keys.GrantPrefix + "7"
	g.add("owner", sub, last)
	g.remove("owner", last)
	g.tell("owner", last)
	if told() {
		t.Fatal("a wait no longer listed was told")
	}
}
