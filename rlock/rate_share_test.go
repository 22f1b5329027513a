package rlock

import (
	"testing"
	"time"

	"github.com/relock-go/relock/scripts"
)

// A Client's spread grows while clients other than relock's take less
// than it takes, up to maxSpread (a quarter of the
// interval, when less), and shrinks back to its least while they take
// more, or none; beside relock's Clients alone it keeps the least.
func TestRateShareSpreadFollowsTheOthers(t *testing.T) {
	s := rateShares{m: map[string]*rateShare{}}
	now := time.Now()
	interval := time.Second
	spread := func() time.Duration {
		if sh := s.m["rl"]; sh != nil {
			return sh.spread
		}
		return leastSpread(interval)
	}
	// Beside relock's Clients alone: no foreign permit.
	for i := range 20 {
		at := now.Add(time.Duration(i) * time.Millisecond)
		s.attempted("rl", at, 1, scripts.RateAttempt{OK: true, Interval: interval, Foreign: 0})
	}
	if got := spread(); got != minSpread {
		t.Fatalf("spread beside relock alone = %v, want %v", got, minSpread)
	}
	// Others took 2 permits while it took 20: it lets them come first.
	for range 40 {
		s.attempted("rl", now.Add(30*time.Millisecond), 1, scripts.RateAttempt{Interval: interval, Foreign: 2})
	}
	if got := spread(); got != maxSpread {
		t.Fatalf("spread while it took 20 and others 2 = %v, want the most, %v", got, maxSpread)
	}
	s.exact = true
	for range 1000 {
		if lag := s.lag("rl", interval, now); lag < 0 || lag >= maxSpread {
			t.Fatalf("lag %v outside [0, %v)", lag, maxSpread)
		}
	}
	s.exact = false
	// A refusal that did not count them changes nothing.
	s.attempted("rl", now.Add(31*time.Millisecond), 1, scripts.RateAttempt{Interval: interval, Foreign: -1})
	if got := spread(); got != maxSpread {
		t.Fatalf("spread after an attempt that counted nothing = %v, want %v", got, maxSpread)
	}
	// A quarter of a short interval bounds it.
	s.attempted("rl", now.Add(35*time.Millisecond), 1, scripts.RateAttempt{Interval: 100 * time.Millisecond, Foreign: 2})
	if got := spread(); got != 25*time.Millisecond {
		t.Fatalf("spread at an interval of 100ms = %v, want 25ms", got)
	}
	// Others took more than it did: it comes sooner again.
	for range 40 {
		s.attempted("rl", now.Add(40*time.Millisecond), 1, scripts.RateAttempt{Interval: interval, Foreign: 40})
	}
	if got := spread(); got != minSpread {
		t.Fatalf("spread while others took 40 and it 20 = %v, want %v", got, minSpread)
	}
	// An interval later its grants are forgotten, and so is the limiter.
	s.attempted("rl", now.Add(2*interval), 1, scripts.RateAttempt{Interval: interval, Foreign: 0})
	if len(s.m) != 0 {
		t.Fatalf("%d limiters remembered with nothing to remember", len(s.m))
	}
	// A short interval's least spread is a hundredth of it, a millisecond
	// at least.
	for iv, want := range map[time.Duration]time.Duration{time.Second: minSpread, 200 * time.Millisecond: 2 * time.Millisecond, 10 * time.Millisecond: time.Millisecond} {
		if got := leastSpread(iv); got != want {
			t.Errorf("leastSpread(%v) = %v, want %v", iv, got, want)
		}
	}
}

// Twice an interval at most, at intervals of minProbed or more, the next
// lag of a Client whose last attempt
// found the permits short is a probe, long enough for a Redisson waiter to
// come first (3 ms, its timer's tick, 10 to 49 ms, and its JVM): between a
// twentieth and a tenth of the interval, 100 and 200 ms at most. The
// others lag within the least spread, a few milliseconds, after a
// refusal, and not at all at entry; an acquisition that finds permits
// (the last attempt left some) is never held up.
func TestRateShareProbesForOtherClients(t *testing.T) {
	for _, c := range []struct {
		interval, lo, hi time.Duration
	}{{time.Second, 50 * time.Millisecond, 100 * time.Millisecond}, {time.Minute, maxSpread / 2, maxSpread}, {500 * time.Millisecond, 25 * time.Millisecond, 50 * time.Millisecond}} {
		s := rateShares{m: map[string]*rateShare{}}
		start := time.Now()
		s.attempted("rl", start, 1, scripts.RateAttempt{OK: true, Left: 3, Interval: c.interval, Foreign: 0})
		if lag := s.entryLag("rl", start.Add(c.interval)); lag != 0 {
			t.Fatalf("interval %v: an acquisition after an attempt that left permits lags %v, want 0", c.interval, lag)
		}
		s.attempted("rl", start, 1, scripts.RateAttempt{Interval: c.interval, Foreign: 0})
		probes := 0
		// Lags drawn every hundredth of the interval for ten intervals:
		// twenty probes.
		for i := 1; i <= 1000; i++ {
			at := start.Add(time.Duration(i) * c.interval / 100)
			lag, entry := s.lag("rl", c.interval, at), s.entryLag("rl", at)
			if lag >= c.lo || entry >= c.lo {
				probes++
			}
			if max(lag, entry) > c.hi || lag >= leastSpread(c.interval) && lag < c.lo || entry > 0 && entry < c.lo {
				t.Fatalf("interval %v: lag %v, at entry %v; want a probe within [%v, %v], or below the least spread %v after a refusal and 0 at entry", c.interval, lag, entry, c.lo, c.hi, leastSpread(c.interval))
			}
		}
		if probes != 10*probesPerInterval {
			t.Fatalf("interval %v: %d probes in ten intervals, want %d", c.interval, probes, 10*probesPerInterval)
		}
	}
	// Under minProbed, no probe: it would be over before a Redisson
	// waiter came.
	s := rateShares{m: map[string]*rateShare{}}
	interval := minProbed - time.Millisecond
	start := time.Now()
	s.attempted("rl", start, 1, scripts.RateAttempt{Interval: interval, Foreign: 0})
	for i := 1; i <= 1000; i++ {
		at := start.Add(time.Duration(i) * interval / 100)
		if lag, entry := s.lag("rl", interval, at), s.entryLag("rl", at); lag >= leastSpread(interval) || entry > 0 {
			t.Fatalf("interval %v: lag %v, at entry %v; want no probe", interval, lag, entry)
		}
	}
}

// The spread settles where the others take as many permits as the Client:
// with the two equal it stays as it is, and while it is above its least
// every acquisition in the Client's line lags within it, even one that
// finds permits there.
func TestRateShareSpreadSettlesWhereTheSharesMeet(t *testing.T) {
	s := rateShares{m: map[string]*rateShare{}, exact: true}
	now := time.Now()
	interval := time.Second
	for i := range 20 {
		s.attempted("rl", now.Add(time.Duration(i)*time.Millisecond), 1, scripts.RateAttempt{OK: true, Left: 5, Interval: interval, Foreign: 20})
	}
	const mid = 40 * time.Millisecond
	s.m["rl"].spread = mid
	for range 40 {
		s.attempted("rl", now.Add(30*time.Millisecond), 1, scripts.RateAttempt{Left: 5, Interval: interval, Foreign: 20})
	}
	if got := s.m["rl"].spread; got != mid {
		t.Fatalf("spread after 40 attempts that found the others' part equal to the Client's = %v, want %v as it was", got, mid)
	}
	longest := time.Duration(0)
	for range 200 {
		lag := s.entryLag("rl", now.Add(40*time.Millisecond))
		if lag < 0 || lag >= mid {
			t.Fatalf("entry lag %v outside [0, %v)", lag, mid)
		}
		longest = max(longest, lag)
	}
	if longest < mid/2 {
		t.Fatalf("the longest of 200 entry lags within a spread of %v while others contend is %v: the line does not lag", mid, longest)
	}
}
