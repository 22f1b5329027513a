package scripts

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// The permits available are the rate less the permits the set's members
// hold, whatever the count says and however many permits a member holds:
// a count Redisson's release raised is recounted, with members of many
// permits (Go's AllowN) and of none (Java's tryAcquire(0)) alike; a
// count below it (another client raised the rate of a per-client
// limiter) is raised.
func TestRateCountIsThePermitsOfTheSet(t *testing.T) {
	onEach(t, func(t *testing.T, s *rateServer) {
		ctx := context.Background()
		r := NewRateLimiter("rl", "c1")
		setRate(t, s.rdb, r, RateConfig{Rate: 10, Interval: time.Minute}, 1)
		if ok, _ := take(t, s.rdb, r, 10, s.now()); !ok {
			t.Fatal("Acquire(10) of 10 refused")
		}
		s.rdb.Set(ctx, "{rl}:value", 5, 0) // Redisson's release(5)
		if ok, _ := take(t, s.rdb, r, 5, s.now()); ok {
			t.Fatal("Acquire(5) granted after Redisson's release(5) of a member of 10: 15 in the window")
		}
		if v := s.rdb.Get(ctx, "{rl}:value").Val(); v != "0" {
			t.Fatalf("{rl}:value = %q after the recount, want 0", v)
		}

		// Redisson's tryAcquire(2) after relock's last write.
		s.rdb.FlushAll(ctx)
		setRate(t, s.rdb, r, RateConfig{Rate: 10, Interval: time.Minute}, 4)
		take(t, s.rdb, r, 8, s.now())
		s.rdb.ZAdd(ctx, "{rl}:permits", zmember(s.now(), 2))
		s.rdb.DecrBy(ctx, "{rl}:value", 2)
		if n, _ := r.Available(ctx, s.rdb, s.now()); n != 0 {
			t.Fatalf("Available after relock's 8 and Redisson's 2 of 10 = %d, want 0", n)
		}

		s.rdb.FlushAll(ctx)
		setRate(t, s.rdb, r, RateConfig{Rate: 2, Interval: time.Minute}, 2)
		now := s.now()
		s.rdb.ZAdd(ctx, "{rl}:permits", zmember(now.Add(-30*time.Second), 0)) // Redisson's tryAcquire(0)
		if ok, _ := take(t, s.rdb, r, 2, now); !ok {
			t.Fatal("Acquire(2) of 2 refused beside a member of 0 permits")
		}
		if ok, wait := take(t, s.rdb, r, 1, now); ok || wait != time.Minute+time.Millisecond {
			t.Fatalf("Acquire(1) with none left = %v, %v; want false, %v: the member of 0 gives back none", ok, wait, time.Minute+time.Millisecond)
		}
		s.rdb.Set(ctx, "{rl}:value", 1, 0) // Redisson's release(1)
		if ok, _ := take(t, s.rdb, r, 1, now); ok {
			t.Fatal("Acquire(1) granted after Redisson's release(1): 3 in the window")
		}

		// Another client lowers, then raises, a per-client rate.
		s.rdb.FlushAll(ctx)
		setRate(t, s.rdb, r, RateConfig{Rate: 10, Interval: time.Minute, PerClient: true}, 3)
		take(t, s.rdb, r, 5, s.now())
		s.rdb.HSet(ctx, "rl", "rate", 6)
		if ok, _ := take(t, s.rdb, r, 2, s.now()); ok {
			t.Fatal("Acquire(2) granted with 5 of a rate lowered to 6 taken")
		}
		if n, _ := r.Available(ctx, s.rdb, s.now()); n != 1 {
			t.Fatalf("Available = %d, want 1", n)
		}
		s.rdb.HSet(ctx, "rl", "rate", 12)
		if ok, _ := take(t, s.rdb, r, 7, s.now()); !ok {
			t.Fatal("Acquire(7) refused with 5 of a rate raised to 12 taken")
		}
	})
}

// zmember is a member of n permits stamped at, for ZADD.
func zmember(at time.Time, n int64) redis.Z {
	return redis.Z{Score: float64(at.UnixMilli()), Member: Member(n)}
}

// TrySet keeps the permits taken (Redisson's trySetRate): a config lost
// alone, then set again, leaves what was taken counted.
func TestRateTrySetKeepsThePermitsTaken(t *testing.T) {
	onEach(t, func(t *testing.T, s *rateServer) {
		ctx := context.Background()
		r := NewRateLimiter("rl", "c1")
		c := RateConfig{Rate: 4, Interval: time.Minute}
		setRate(t, s.rdb, r, c, 1)
		take(t, s.rdb, r, 3, s.now())
		s.rdb.Del(ctx, "rl") // evicted
		if ok, err := r.Set(ctx, s.rdb, c, true, rateReq(2), Publish); !ok || err != nil {
			t.Fatalf("TrySet on a lost config = %v, %v", ok, err)
		}
		if n, _ := r.Available(ctx, s.rdb, s.now()); n != 1 {
			t.Fatalf("Available after TrySet = %d, want 1: the 3 taken are kept", n)
		}
	})
}

// A stamp is the caller's clock as it is, as Redisson's are, whatever
// Redis's clock says: callers whose clocks agree judge the same permits
// alike (docs/rate-limiter.md, The clock).
func TestRateStampIsTheCallersClock(t *testing.T) {
	onEach(t, func(t *testing.T, s *rateServer) {
		ctx := context.Background()
		for _, skew := range []time.Duration{100 * time.Millisecond, -100 * time.Millisecond, time.Hour} {
			s.rdb.FlushAll(ctx)
			r := NewRateLimiter("rl", "c1")
			setRate(t, s.rdb, r, RateConfig{Rate: 2, Interval: time.Second}, 1)
			at := s.now().Add(skew)
			take(t, s.rdb, r, 1, at)
			if score := int64(s.rdb.ZRangeWithScores(ctx, "{rl}:permits", 0, 0).Val()[0].Score); score != at.UnixMilli() {
				t.Errorf("stamp %v off the server's clock scored %+d ms from it", skew, score-at.UnixMilli())
			}
			// A Redisson client on the same clock took the other permit
			// 900 ms later: nothing is available until a second after the
			// first, on that clock.
			s.rdb.ZAdd(ctx, "{rl}:permits", zmember(at.Add(900*time.Millisecond), 1))
			s.rdb.Set(ctx, "{rl}:value", 0, 0)
			if ok, _ := take(t, s.rdb, r, 1, at.Add(911*time.Millisecond)); ok {
				t.Errorf("stamp %v off: a permit granted 911 ms after the first of 2 a second", skew)
			}
			if ok, _ := take(t, s.rdb, r, 1, at.Add(time.Second+time.Millisecond)); !ok {
				t.Errorf("stamp %v off: the first permit did not come back a second after", skew)
			}
		}
	})
}
