package scripts

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// A resend of an acquisition (the same member) finds it taken and takes
// nothing more, whether permits are left or it took the last; nor does it
// move the acquisition's stamp, so its permits come back an interval
// after the first send.
func TestRateResendTakesOnce(t *testing.T) {
	onEach(t, func(t *testing.T, s *rateServer) {
		ctx := context.Background()
		r := NewRateLimiter("rl", "c1")
		setRate(t, s.rdb, r, RateConfig{Rate: 4, Interval: time.Minute}, 1)
		at := s.now()
		for _, want := range []int64{2, 0} {
			member := Member(2)
			for _, sent := range []time.Time{at, at.Add(10 * time.Second)} {
				v, err := rateAcquire.Run(ctx, s.rdb, r.keys, 2, sent.UnixMilli(), member, 1).Int64Slice()
				if err != nil || v[0] != 1 || (sent != at && v[2] != 0) {
					t.Fatalf("acquisition sent at +%v = %v, %v", sent.Sub(s.now()), v, err)
				}
			}
			if n, _ := r.Available(ctx, s.rdb, at.Add(10*time.Second)); n != want {
				t.Fatalf("Available = %d after an acquisition of 2 sent twice, want %d", n, want)
			}
			at = at.Add(10 * time.Second)
		}
		// Not asked to tell when, a refused acquisition does not.
		if a, err := r.Acquire(ctx, s.rdb, 1, 0, at, false); a.OK || a.Wait != 0 || err != nil {
			t.Fatalf("Acquire(1) not telling = %+v, %v; want false, 0", a, err)
		}
		// The first acquisition's permits are back 1 ms after an interval
		// from its first send; the second's are not yet.
		if n, _ := r.Available(ctx, s.rdb, s.now().Add(time.Minute+time.Millisecond)); n != 2 {
			t.Fatalf("Available an interval after the first send = %d, want 2: the resend moved its stamp", n)
		}
	})
}

// TrySet sets a rate only where none is; Set replaces it and resets the
// limiter; a resent request is applied once.
func TestRateSetAndTrySet(t *testing.T) {
	ctx := context.Background()
	s := onMiniredis(t)
	r := NewRateLimiter("rl", "c1")
	one := RateConfig{Rate: 2, Interval: time.Second}
	if ok, err := r.Set(ctx, s.rdb, one, true, rateReq(1), Publish); !ok || err != nil {
		t.Fatalf("TrySet on none = %v, %v", ok, err)
	}
	if ok, err := r.Set(ctx, s.rdb, one, true, rateReq(1), Publish); !ok || err != nil {
		t.Fatalf("its resend = %v, %v; want its reply, true", ok, err)
	}
	if ok, err := r.Set(ctx, s.rdb, RateConfig{Rate: 9, Interval: time.Second}, true, rateReq(2), Publish); ok || err != nil {
		t.Fatalf("TrySet on a rate = %v, %v; want false", ok, err)
	}
	take(t, s.rdb, r, 2, s.now())
	setRate(t, s.rdb, r, RateConfig{Rate: 3, Interval: time.Second}, 3)
	if n, _ := r.Available(ctx, s.rdb, s.now()); n != 3 || s.mr.Exists("{rl}:permits") {
		t.Fatalf("Available after Set = %d, want 3 (reset)", n)
	}
	take(t, s.rdb, r, 3, s.now())
	setRate(t, s.rdb, r, RateConfig{Rate: 3, Interval: time.Second}, 3) // a resend
	if n, _ := r.Available(ctx, s.rdb, s.now()); n != 0 {
		t.Fatalf("Available after a resent Set = %d, want 0: it reset the limiter again", n)
	}
}

// keepAliveTime re-arms every key's expiry at each attempt; without it
// the config's own TTL, if any, is given to the state when it is created
// (Redisson's rule), and kept after; Set removes the TTL an earlier
// keepAliveTime left.
func TestRateKeepAlive(t *testing.T) {
	ctx := context.Background()
	s := onMiniredis(t)
	r := NewRateLimiter("rl", "c1")
	setRate(t, s.rdb, r, RateConfig{Rate: 2, Interval: time.Second, KeepAlive: 5 * time.Second}, 1)
	if ttl := s.mr.TTL("rl"); ttl != 5*time.Second {
		t.Fatalf("config's TTL = %v, want 5s", ttl)
	}
	s.advance(4 * time.Second)
	take(t, s.rdb, r, 1, s.now())
	for _, k := range []string{"rl", "{rl}:value", "{rl}:permits"} {
		if ttl := s.mr.TTL(k); ttl != 5*time.Second {
			t.Fatalf("%s's TTL = %v after an acquisition, want 5s", k, ttl)
		}
	}
	s.advance(5 * time.Second)
	if s.mr.Exists("rl") || s.mr.Exists("{rl}:value") || s.mr.Exists("{rl}:permits") {
		t.Fatal("an idle limiter outlived its keepAliveTime")
	}
	setRate(t, s.rdb, r, RateConfig{Rate: 2, Interval: time.Second, KeepAlive: 5 * time.Second}, 2)
	setRate(t, s.rdb, r, RateConfig{Rate: 2, Interval: time.Second}, 3)
	if ttl := s.mr.TTL("rl"); ttl != 0 {
		t.Fatalf("config's TTL = %v after Set without keepAliveTime, want none", ttl)
	}
	s.rdb.PExpire(ctx, "rl", 3*time.Second)
	take(t, s.rdb, r, 1, s.now())
	if ttl := s.mr.TTL("{rl}:permits"); ttl != 3*time.Second {
		t.Fatalf("permits' TTL = %v, want the config's 3s", ttl)
	}
	// Later acquisitions keep the keys' TTLs: they expire together.
	s.advance(time.Second)
	take(t, s.rdb, r, 1, s.now())
	for _, k := range []string{"rl", "{rl}:value", "{rl}:permits"} {
		if ttl := s.mr.TTL(k); ttl != 2*time.Second {
			t.Fatalf("%s's TTL = %v a second later, want 2s", k, ttl)
		}
	}
}

// Release gives back the permits taken last, which leave the set, so that
// no window of one interval holds more than the rate: the permits it gave
// back do not come back a second time when their members would have
// ended.
func TestRateReleaseKeepsTheWindow(t *testing.T) {
	ctx := context.Background()
	s := onMiniredis(t)
	r := NewRateLimiter("rl", "c1")
	setRate(t, s.rdb, r, RateConfig{Rate: 4, Interval: time.Second}, 1)
	take(t, s.rdb, r, 1, s.now())
	s.advance(100 * time.Millisecond)
	take(t, s.rdb, r, 3, s.now())
	s.advance(100 * time.Millisecond)
	if n, err := r.Release(ctx, s.rdb, 2, s.now(), rateReq(2), Publish); n != 2 || err != nil {
		t.Fatalf("Release(2) = %d, %v", n, err)
	}
	if n, err := r.Release(ctx, s.rdb, 2, s.now(), rateReq(2), Publish); n != 2 || err != nil {
		t.Fatalf("its resend = %d, %v; want its reply", n, err)
	}
	zs := s.rdb.ZRange(ctx, "{rl}:permits", 0, -1).Val()
	if len(zs) != 2 || permitsOf(zs[0]) != 1 || permitsOf(zs[1]) != 1 {
		t.Fatalf("members after Release(2) = %x, want 1 then the latest left with 1", zs)
	}
	take(t, s.rdb, r, 2, s.now()) // the 2 given back, taken again
	// When the first member ends, one permit comes back, no more.
	s.advance(801 * time.Millisecond)
	if n, _ := r.Available(ctx, s.rdb, s.now()); n != 1 {
		t.Fatalf("Available when the first member ended = %d, want 1", n)
	}
	if n, err := r.Release(ctx, s.rdb, 9, s.now(), rateReq(3), Publish); n != 3 || err != nil {
		t.Fatalf("Release(9) with 3 taken = %d, %v; want 3", n, err)
	}
	if n, _ := r.Available(ctx, s.rdb, s.now()); n != 4 {
		t.Fatalf("Available after giving all back = %d, want 4", n)
	}
}

// permitsOf is the permits of a member of the set.
func permitsOf(member string) uint32 {
	b := []byte(member)
	return uint32(b[len(b)-4]) | uint32(b[len(b)-3])<<8 | uint32(b[len(b)-2])<<16 | uint32(b[len(b)-1])<<24
}

// A client's own keys of a per-client limiter expire two intervals after
// its last write, when every permit of theirs came back: a client that
// is gone leaves nothing (Redisson's own keep no TTL unless the config
// has one).
func TestRatePerClientKeysExpire(t *testing.T) {
	s := onMiniredis(t)
	r := NewRateLimiter("rl", "c1")
	setRate(t, s.rdb, r, RateConfig{Rate: 2, Interval: time.Second, PerClient: true}, 1)
	take(t, s.rdb, r, 1, s.now())
	for _, k := range []string{"{rl}:value:c1", "{rl}:permits:c1", "{rl}:ledger:c1"} {
		if ttl := s.mr.TTL(k); ttl != 2*time.Second {
			t.Fatalf("%s's TTL = %v, want 2s", k, ttl)
		}
	}
	if ttl := s.mr.TTL("rl"); ttl != 0 {
		t.Fatalf("the config's TTL = %v, want none", ttl)
	}
}

// Every attempt counts the permits of other clients than relock's
// within the interval (Redisson's members, whose ids are 16 bytes long):
// granted, refused telling when, after a Redisson write, after a relock
// release of a Redisson member, and once they left the interval.
func TestRateAttemptCountsTheForeignPermits(t *testing.T) {
	onEach(t, func(t *testing.T, s *rateServer) {
		ctx := context.Background()
		r := NewRateLimiter("rl", "c1")
		setRate(t, s.rdb, r, RateConfig{Rate: 6, Interval: time.Minute}, 1)
		at := s.now()
		attempt := func(n int64, ok bool, foreign int64) {
			t.Helper()
			a, err := r.Acquire(ctx, s.rdb, n, 0, at, true)
			if err != nil || a.OK != ok || a.Foreign != foreign {
				t.Fatalf("attempt for %d = %+v, %v; want taken %v, %d foreign", n, a, err, ok, foreign)
			}
		}
		attempt(2, true, 0)
		// A Redisson acquisition of 3, a millisecond later: its member, and
		// the count it lowers.
		redisson := string(append([]byte{16}, "0123456789abcdef\x03\x00\x00\x00"...))
		s.rdb.ZAdd(ctx, "{rl}:permits", redis.Z{Score: float64(at.UnixMilli() + 1), Member: redisson})
		s.rdb.DecrBy(ctx, "{rl}:value", 3)
		at = at.Add(2 * time.Millisecond)
		attempt(1, true, 3)
		// Released, the latest permits go first: 1 of relock's, 1 of
		// Redisson's.
		if n, err := r.Release(ctx, s.rdb, 2, at, rateReq(9), Publish); err != nil || n != 2 {
			t.Fatalf("Release(2) = %d, %v", n, err)
		}
		attempt(1, true, 2)
		attempt(2, false, 2)
		// An interval after Redisson's, only relock's last are left.
		at = at.Add(time.Minute)
		attempt(1, true, 0)
	})
}
