package pubsub

import (
	"slices"
	"testing"
	"time"
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

// A subscription's confirmation is awaited from when its command is
// written, not from when it was queued: a writer that a busy machine does
// not schedule for a while has not found the connection slow, and the
// reader must not replace it for that.
func TestConfirmationIsAwaitedFromTheWrite(t *testing.T) {
	s := &shard{gen: 1, healthCheck: time.Second}
	s.send(false, "a")
	if s.pending != 0 || s.overdue(true) {
		t.Fatalf("queued, not written: %d confirmations awaited, want none", s.pending)
	}
	written := time.Now()
	s.wrote(s.queue[0])
	if s.pending != 2 || s.progress.Before(written) {
		t.Fatalf("written: %d confirmations awaited since %v, want 2 (the channel and its presence marker) since the write at %v",
			s.pending, s.progress, written)
	}
}
