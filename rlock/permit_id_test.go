package rlock

import (
	"errors"
	"testing"
	"time"

	"github.com/relock-go/relock/test/testkit"
)

// TestPermitIDThatNoPermitHas: an id that no permit can have is bad input
// (ErrInvalidPermitID), refused before anything is sent, and not reported
// as a permit that is not held.
func TestPermitIDThatNoPermitHas(t *testing.T) {
	mr, rdb := testkit.Miniredis(t)
	c := newClient(t, rdb)
	ctx := ctxT(t)
	s := c.NewPermitExpirableSemaphore("s")
	for _, id := range []string{"", "zz", "abc"} {
		before := mr.CommandCount()
		if err := s.Release(ctx, id); !errors.Is(err, ErrInvalidPermitID) || errors.Is(err, ErrNotHeld) {
			t.Errorf("Release(%q) = %v, want ErrInvalidPermitID and not ErrNotHeld", id, err)
		}
		if ok, err := s.UpdateLeaseTime(ctx, id, time.Minute); ok || !errors.Is(err, ErrInvalidPermitID) || errors.Is(err, ErrNotHeld) {
			t.Errorf("UpdateLeaseTime(%q) = %v, %v, want ErrInvalidPermitID and not ErrNotHeld", id, ok, err)
		}
		if n := mr.CommandCount() - before; n != 0 {
			t.Errorf("id %q: %d commands sent to Redis, want none", id, n)
		}
	}
	// A well-formed id of no leased permit is not held.
	if err := s.Release(ctx, "0123456789abcdef0123456789abcdef"); !errors.Is(err, ErrNotHeld) {
		t.Errorf("Release of a permit never taken = %v, want ErrNotHeld", err)
	}
}
