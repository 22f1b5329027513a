package fleet

import (
	"testing"
	"time"
)

// The checker accepts a right history and counts each kind of wrong one.
func TestCountJudgesEachTick(t *testing.T) {
	start := time.Unix(1000, 0)
	s := Schedule{Interval: time.Second, StartAt: start, For: 5 * time.Second}
	offsets := []time.Duration{0, 200 * time.Millisecond}
	at := func(ms int) time.Time { return start.Add(time.Duration(ms) * time.Millisecond) }
	run := func(i, from, to int) Run { return Run{Instance: i, Start: at(from), End: at(to)} }
	for _, tc := range []struct {
		name string
		runs []Run
		want Tally
	}{
		{"each tick once, by either scheduler", []Run{run(0, 0, 10), run(1, 1200, 1210), run(0, 2000, 2010), run(1, 3200, 3210)},
			Tally{Ticks: 4, Once: 4}},
		{"a tick run by both schedulers", []Run{run(0, 0, 10), run(1, 200, 210), run(0, 1000, 1010), run(0, 2000, 2010), run(0, 3000, 3010)},
			Tally{Ticks: 4, Once: 3, Twice: 1}},
		{"a tick nobody ran", []Run{run(0, 0, 10), run(0, 2000, 2010), run(0, 3000, 3010)},
			Tally{Ticks: 4, Once: 3, Missed: 1}},
		{"a tick skipped during a long run", []Run{run(0, 0, 1500), run(0, 2000, 2010), run(0, 3000, 3010)},
			Tally{Ticks: 4, Once: 3, Busy: 1}},
		{"overlapping runs", []Run{run(0, 0, 1500), run(1, 1200, 1300), run(0, 2000, 2010), run(0, 3000, 3010)},
			Tally{Ticks: 4, Once: 4, Overlaps: 1}},
	} {
		if got := Count(tc.runs, s, offsets, 0, nil); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// A run of a killed instance ends at the kill; the runs come out by start.
func TestRunsPairsStartsAndEnds(t *testing.T) {
	t0 := time.Unix(1000, 0)
	events := []Event{
		{Instance: 1, Kind: "start", N: 1, At: t0.Add(time.Second)},
		{Instance: 0, Kind: "start", N: 1, At: t0},
		{Instance: 0, Kind: "end", N: 1, At: t0.Add(10 * time.Millisecond)},
		{Instance: 0, Kind: "leader", N: 1, At: t0},
	}
	killed := map[int]time.Time{1: t0.Add(1500 * time.Millisecond)}
	got := Runs(events, killed)
	want := []Run{{0, t0, t0.Add(10 * time.Millisecond)}, {1, t0.Add(time.Second), killed[1]}}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("Runs = %v, want %v", got, want)
	}
}

// A tick whose firings were further apart than its claim is late; one
// whose firings were within it is not.
func TestLateTicksAreThoseFiredFurtherApartThanTheirClaim(t *testing.T) {
	start := time.Unix(1000, 0)
	s := Schedule{Interval: time.Second, StartAt: start, For: 5 * time.Second}
	offsets := []time.Duration{0, 0}
	fire := func(i, ms int) Event {
		return Event{Instance: i, Kind: "fire", At: start.Add(time.Duration(ms) * time.Millisecond)}
	}
	events := []Event{
		fire(0, 0), fire(1, 100), // tick 0: 100 ms apart, within the 500 ms claim
		fire(0, 1000), fire(1, 1460), // tick 1: 460 ms apart, not within 500 ms less 50
		fire(0, 2000), fire(1, 2400), // tick 2: 400 ms apart, within min(500, 940/2) less 50
		fire(1, 2800), fire(0, 3000), // tick 3: 200 ms apart, not within min(500, 400/2) less 50
	}
	late := Late(events, s, offsets, 500*time.Millisecond, 50*time.Millisecond)
	want := map[int]bool{1: true, 3: true}
	if len(late) != len(want) || !late[1] || !late[3] {
		t.Errorf("Late = %v, want %v", late, want)
	}
	runs := []Run{{0, start, start.Add(10 * time.Millisecond)}, {1, start.Add(100 * time.Millisecond), start.Add(110 * time.Millisecond)}}
	if got := Count(runs, s, offsets, 0, late); got.Twice != 1 || got.Late != 0 {
		t.Errorf("tick 0 run twice though fired within its claim: %v, want it counted twice", got)
	}
}
