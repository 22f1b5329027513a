package scripts

import (
	"context"
	"encoding/binary"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// rateReq is request seq of client "c1" in slot 0.
func rateReq(seq uint64) Request { return Request{Client: "c1", Field: 0, Seq: seq, TTL: time.Minute} }

// setRate sets r's rate on rdb, failing the test if it cannot.
func setRate(t *testing.T, rdb redis.Scripter, r *RateLimiter, c RateConfig, seq uint64) {
	t.Helper()
	if ok, err := r.Set(context.Background(), rdb, c, false, rateReq(seq), Publish); !ok || err != nil {
		t.Fatalf("Set(%+v) = %v, %v", c, ok, err)
	}
}

// take is r.Acquire, failing the test on an error.
func take(t *testing.T, rdb redis.Scripter, r *RateLimiter, n int64, now time.Time) (bool, time.Duration) {
	t.Helper()
	a, err := r.Acquire(context.Background(), rdb, n, 0, now, true)
	if err != nil {
		t.Fatalf("Acquire(%d): %v", n, err)
	}
	return a.OK, a.Wait
}

// The keys, fields and members are Redisson's: the config's four fields,
// the count at {NAME}:value, and a member per acquisition in
// {NAME}:permits scored with the caller's clock: a length byte (16), the
// random id, and the permits in 4 bytes, little-endian.
func TestRateLayoutIsRedissons(t *testing.T) {
	onEach(t, func(t *testing.T, s *rateServer) {
		ctx := context.Background()
		r := NewRateLimiter("rl", "c1")
		setRate(t, s.rdb, r, RateConfig{Rate: 10, Interval: 2 * time.Second}, 1)
		if h := s.rdb.HGetAll(ctx, "rl").Val(); len(h) != 4 || h["rate"] != "10" || h["interval"] != "2000" || h["type"] != "0" || h["keepAliveTime"] != "0" {
			t.Fatalf("config = %v", h)
		}
		now := s.now()
		if ok, _ := take(t, s.rdb, r, 3, now); !ok {
			t.Fatal("Acquire(3) of 10 refused")
		}
		if v := s.rdb.Get(ctx, "{rl}:value").Val(); v != "7" {
			t.Fatalf("{rl}:value = %q, want 7", v)
		}
		zs := s.rdb.ZRangeWithScores(ctx, "{rl}:permits", 0, -1).Val()
		if len(zs) != 1 || int64(zs[0].Score) != now.UnixMilli() {
			t.Fatalf("{rl}:permits = %v, want one member at %d", zs, now.UnixMilli())
		}
		m := zs[0].Member.(string)
		// Redisson's layout, with an id of 17 bytes where Redisson's are 16:
		// relock's own.
		if len(m) != 22 || m[0] != 17 || binary.LittleEndian.Uint32([]byte(m[18:])) != 3 {
			t.Fatalf("member %x: want 17, 17 bytes, then 3 in 4 bytes little-endian", m)
		}
		// A per-client limiter keeps each client's pair of keys.
		setRate(t, s.rdb, r, RateConfig{Rate: 10, Interval: 2 * time.Second, PerClient: true}, 2)
		take(t, s.rdb, NewRateLimiter("rl", "c2"), 4, s.now())
		if v := s.rdb.Get(ctx, "{rl}:value:c2").Val(); v != "6" || s.rdb.ZCard(ctx, "{rl}:permits:c2").Val() != 1 {
			t.Fatalf("{rl}:value:c2 = %q, and %d members of its permits", v, s.rdb.ZCard(ctx, "{rl}:permits:c2").Val())
		}
		// A name with braces keeps them.
		b := NewRateLimiter("{a}b", "c1")
		setRate(t, s.rdb, b, RateConfig{Rate: 1, Interval: time.Second}, 3)
		take(t, s.rdb, b, 1, s.now())
		if s.rdb.Exists(ctx, "{a}b:value", "{a}b:permits").Val() != 2 {
			t.Fatal("a braced name's keys are not {a}b:value and {a}b:permits")
		}
	})
}

// Permits are taken until the rate is used; then the script tells how
// long until enough come back: the end of the interval of the oldest
// members that make up the shortfall, counted from the caller's stamp.
// They come back a millisecond after one interval from their stamp: a
// stamp is a whole millisecond, up to 1 ms before the permit was taken.
func TestRateAcquireTakesTheRateThenTellsWhen(t *testing.T) {
	onEach(t, func(t *testing.T, s *rateServer) {
		ctx := context.Background()
		const interval = 400 * time.Millisecond
		r := NewRateLimiter("rl", "c1")
		setRate(t, s.rdb, r, RateConfig{Rate: 3, Interval: interval}, 1)
		take(t, s.rdb, r, 1, s.now())
		s.advance(100 * time.Millisecond)
		if ok, _ := take(t, s.rdb, r, 2, s.now()); !ok {
			t.Fatal("Acquire(2) with 2 left refused")
		}
		scores := s.rdb.ZRangeWithScores(ctx, "{rl}:permits", 0, -1).Val()
		if len(scores) != 2 {
			t.Fatalf("members %v, want 2", scores)
		}
		s.advance(50 * time.Millisecond)
		for i, n := range []int64{1, 3} {
			t2 := s.now()
			ok, wait := take(t, s.rdb, r, n, t2)
			want := int64(scores[i].Score) + interval.Milliseconds() + 1 - t2.UnixMilli()
			if ok || wait.Milliseconds() != want {
				t.Fatalf("Acquire(%d) with none left = %v, %v; want false, %dms: the end of member %d", n, ok, wait, want, i)
			}
			if i == 1 {
				s.advance(wait - time.Millisecond)
				if ok, _ := take(t, s.rdb, r, 3, t2.Add(wait-time.Millisecond)); ok {
					t.Fatal("Acquire(3) granted one interval after the members' stamps: a permit back up to 1 ms early")
				}
				s.advance(time.Millisecond)
			}
		}
		if ok, _ := take(t, s.rdb, r, 3, s.now()); !ok {
			t.Fatal("Acquire(3) refused once both members ended")
		}
	})
}

func TestRateErrors(t *testing.T) {
	onEach(t, func(t *testing.T, s *rateServer) {
		ctx := context.Background()
		r := NewRateLimiter("rl", "c1")
		if _, err := r.Acquire(ctx, s.rdb, 1, 0, s.now(), true); !errors.Is(err, ErrNoRate) {
			t.Fatalf("Acquire with no rate: %v", err)
		}
		if _, err := r.Available(ctx, s.rdb, s.now()); !errors.Is(err, ErrNoRate) {
			t.Fatalf("Available with no rate: %v", err)
		}
		if _, err := r.Release(ctx, s.rdb, 1, s.now(), rateReq(1), Publish); !errors.Is(err, ErrNoRate) {
			t.Fatalf("Release with no rate: %v", err)
		}
		if _, err := r.Config(ctx, s.rdb); !errors.Is(err, ErrNoRate) {
			t.Fatalf("Config with no rate: %v", err)
		}
		if s.rdb.DBSize(ctx).Val() != 0 {
			t.Fatalf("keys left: %v", s.rdb.Keys(ctx, "*").Val())
		}
		setRate(t, s.rdb, r, RateConfig{Rate: 5, Interval: time.Second}, 2)
		if _, err := r.Acquire(ctx, s.rdb, 6, 0, s.now(), true); !errors.Is(err, ErrOverRate) || !strings.Contains(err.Error(), "rate is 5") {
			t.Fatalf("Acquire(6) of a rate of 5: %v", err)
		}
		if c, err := r.Config(ctx, s.rdb); c != (RateConfig{Rate: 5, Interval: time.Second}) || err != nil {
			t.Fatalf("Config = %+v, %v", c, err)
		}
	})
}

// A key of another kind at any of the limiter's names fails every script
// with WRONGTYPE, and nothing is changed.
func TestRateWrongType(t *testing.T) {
	onEach(t, func(t *testing.T, s *rateServer) {
		ctx := context.Background()
		r := NewRateLimiter("rl", "c1")
		for i, tc := range []struct {
			name string
			set  func()
		}{
			{"config a string", func() { s.rdb.Set(ctx, "rl", "x", 0) }},
			{"config a lock's hash", func() { s.rdb.HSet(ctx, "rl", "c:1", 1) }},
			{"value a list", func() {
				setRate(t, s.rdb, r, RateConfig{Rate: 5, Interval: time.Second}, 9)
				s.rdb.RPush(ctx, "{rl}:value", "x")
			}},
			{"value not a count", func() {
				setRate(t, s.rdb, r, RateConfig{Rate: 5, Interval: time.Second}, 9)
				s.rdb.Set(ctx, "{rl}:value", "x", 0)
			}},
			{"permits a string", func() {
				setRate(t, s.rdb, r, RateConfig{Rate: 5, Interval: time.Second}, 9)
				s.rdb.Set(ctx, "{rl}:permits", "x", 0)
			}},
			{"permits not permits", func() {
				setRate(t, s.rdb, r, RateConfig{Rate: 5, Interval: time.Second}, 9)
				s.rdb.Set(ctx, "{rl}:value", "0", 0)
				s.rdb.ZAdd(ctx, "{rl}:permits", redis.Z{Score: float64(s.now().UnixMilli()), Member: "x"})
			}},
		} {
			s.rdb.FlushAll(ctx)
			tc.set()
			before := s.rdb.Keys(ctx, "*").Val()
			if _, err := r.Acquire(ctx, s.rdb, 1, 0, s.now(), true); err == nil || !strings.Contains(err.Error(), "WRONGTYPE") {
				t.Errorf("%s: Acquire: %v", tc.name, err)
			}
			if _, err := r.Release(ctx, s.rdb, 1, s.now(), rateReq(uint64(100+i)), Publish); err == nil || !strings.Contains(err.Error(), "WRONGTYPE") {
				t.Errorf("%s: Release: %v", tc.name, err)
			}
			if after := s.rdb.Keys(ctx, "*").Val(); len(after) != len(before) {
				t.Errorf("%s: keys %v became %v", tc.name, before, after)
			}
		}
		s.rdb.FlushAll(ctx)
		s.rdb.Set(ctx, "rl", "x", 0)
		for what, err := range map[string]error{
			"Set": func() error {
				_, err := r.Set(ctx, s.rdb, RateConfig{Rate: 1, Interval: time.Second}, false, rateReq(20), Publish)
				return err
			}(),
			"Available": func() error { _, err := r.Available(ctx, s.rdb, s.now()); return err }(),
			"Delete":    func() error { _, err := r.Delete(ctx, s.rdb, Publish); return err }(),
		} {
			if err == nil || !strings.Contains(err.Error(), "WRONGTYPE") {
				t.Errorf("%s of a string: %v", what, err)
			}
		}
		if s.rdb.Get(ctx, "rl").Val() != "x" {
			t.Error("the string was changed")
		}
	})
}
