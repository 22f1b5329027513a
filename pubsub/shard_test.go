package pubsub

import (
	"slices"
	"testing"
)

// A burst of subscriptions goes out as one command per run of one kind,
// in order, and in sharded mode per cluster slot.
func TestCoalesceMergesRunsInOrder(t *testing.T) {
	sub := func(unsub bool, chs ...string) command { return command{unsub: unsub, channels: chs} }
	queue := []command{
		sub(false, "a"), sub(false, "b"), sub(true, "c"), sub(true, "d"),
		sub(false, "e"), {numsub: true, channels: []string{"f"}}, sub(false, "g"),
	}
	got := (&shard{}).coalesce(queue)
	want := [][]string{{"a", "b"}, {"c", "d"}, {"e"}, {"f"}, {"g"}}
	if len(got) != len(want) {
		t.Fatalf("coalesced into %d commands %+v, want %v", len(got), got, want)
	}
	for i, c := range got {
		if !slices.Equal(c.channels, want[i]) {
			t.Errorf("command %d: %v, want %v", i, c.channels, want[i])
		}
	}
	if !slices.Equal(queue[0].channels, []string{"a"}) {
		t.Errorf("the queued command was changed: %v", queue[0].channels)
	}

	sharded := (&shard{node: "127.0.0.1:7000"}).coalesce([]command{
		sub(false, "x:{1}"), sub(false, "y:{1}"), sub(false, "z:{2}"),
	})
	if len(sharded) != 2 || !slices.Equal(sharded[0].channels, []string{"x:{1}", "y:{1}"}) {
		t.Errorf("sharded: %+v, want the channels of slot {1} together, {2} apart", sharded)
	}
}
