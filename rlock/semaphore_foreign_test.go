package rlock

import (
	"testing"

	"github.com/relock-go/relock/internal/keys"
)

// A Client that released a semaphore's permit, heard by a client that is
// not relock's (a Redisson waiter, woken by the release), lets that
// client's thread try first: an acquisition of its own that starts right
// after listens and waits out the step-aside, although the permit is
// free. With a relock Client listening instead, it takes the permit at
// once.
func TestSemaphoreReleaseLetsForeignWaiterGoFirst(t *testing.T) {
	for _, foreign := range []bool{false, true} {
		rec := newRecorder()
		rdb := newRedis(t)
		c := newClient(t, rdb, WithObserver(rec))
		ctx := ctxT(t)
		const name = "sem-turns"
		s := c.NewSemaphore(name)
		if ok, err := s.TrySetPermits(ctx, 1); !ok || err != nil {
			t.Fatalf("TrySetPermits = %v, %v", ok, err)
		}
		// The other client's waiter: a relock Client subscribes to the
		// channel's presence marker too.
		channels := []string{keys.SemaphoreChannel(name)}
		if !foreign {
			channels = append(channels, keys.Presence(channels[0]))
		}
		sub := rdb.Subscribe(ctx, channels...)
		t.Cleanup(func() { _ = sub.Close() })
		for range channels {
			if _, err := sub.Receive(ctx); err != nil {
				t.Fatal(err)
			}
		}
		for range 2 {
			if err := s.Acquire(ctx, 1); err != nil {
				t.Fatal(err)
			}
			if err := s.Release(ctx, 1); err != nil {
				t.Fatal(err)
			}
		}
		got := rec.of(EventAcquired)
		if len(got) != 2 || got[0].Waited {
			t.Fatalf("foreign listener %v: acquisitions %+v, want two, the first at once", foreign, got)
		}
		if got[1].Waited != foreign {
			t.Fatalf("foreign listener %v: the acquisition after a release waited %v, want %v", foreign, got[1].Waited, foreign)
		}
	}
}
