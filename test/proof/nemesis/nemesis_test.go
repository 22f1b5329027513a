package nemesis

import (
	"os"
	"slices"
	"testing"
	"time"

	"github.com/relock-go/relock/test/testenv"
)

func TestMain(m *testing.M) { os.Exit(testenv.Main(m.Run)) }

func TestFirstRoundDrawsEveryKindOnEverySide(t *testing.T) {
	s, err := New(7, nil, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	n := 0
	for !s.Covered() {
		f := s.Next()
		seen[f.Kind+"/"+f.Side] = true
		if n++; n > 100 {
			t.Fatal("the schedule never covered every kind")
		}
	}
	// Every kind once, pause and kill once per side: len(Kinds)+2 draws.
	if n != len(Kinds)+2 {
		t.Errorf("covered after %d draws, want %d", n, len(Kinds)+2)
	}
	for _, k := range Kinds {
		sides := []string{""}
		if k == Pause || k == Kill {
			sides = []string{Go, Java}
		}
		for _, side := range sides {
			if !seen[k+"/"+side] {
				t.Errorf("%s on side %q never drawn in the first round", k, side)
			}
		}
	}
}

func TestSameSeedSameFaults(t *testing.T) {
	draw := func(seed int64) []Fault {
		s, err := New(seed, nil, time.Second)
		if err != nil {
			t.Fatal(err)
		}
		out := make([]Fault, 40)
		for i := range out {
			out[i] = s.Next()
		}
		return out
	}
	if a, b := draw(3), draw(3); !slices.Equal(a, b) {
		t.Error("two schedules of one seed drew different faults")
	}
	if a, b := draw(3), draw(4); slices.Equal(a, b) {
		t.Error("two seeds drew the same faults")
	}
}

func TestLengthsInLeases(t *testing.T) {
	const lease = 2 * time.Second
	s, err := New(1, []string{Pause, Partition, Latency, CutMaster}, lease)
	if err != nil {
		t.Fatal(err)
	}
	bounds := map[string][2]float64{Pause: {1, 3}, Partition: {0.5, 3}, Latency: {1, 3}, CutMaster: {0.5, 1.5}}
	for range 200 {
		f := s.Next()
		lo, hi := bounds[f.Kind][0], bounds[f.Kind][1]
		if f.Length < time.Duration(lo*float64(lease)) || f.Length > time.Duration(hi*float64(lease)) {
			t.Fatalf("%v: length outside [%v, %v] leases", f, lo, hi)
		}
	}
}

// A run with a Cluster draws its kinds; one without never does.
func TestClusterKindsOnlyWhenAskedFor(t *testing.T) {
	s, err := New(1, append(slices.Clone(Kinds), ClusterKinds...), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for !s.Covered() {
		seen[s.Next().Kind] = true
	}
	for _, k := range ClusterKinds {
		if !seen[k] {
			t.Errorf("the first round did not draw %s", k)
		}
	}
	if s, err = New(1, nil, time.Second); err != nil {
		t.Fatal(err)
	}
	for range 500 {
		if f := s.Next(); slices.Contains(ClusterKinds, f.Kind) {
			t.Fatalf("drew %v without a Cluster", f)
		}
	}
}

func TestBadKinds(t *testing.T) {
	if _, err := New(1, []string{"meteor"}, time.Second); err == nil {
		t.Error("an unknown kind was accepted")
	}
	if _, err := New(1, []string{}, time.Second); err == nil {
		t.Error("no kind was accepted")
	}
	if _, err := New(1, nil, 0); err == nil {
		t.Error("a lease of 0 was accepted")
	}
}

// A partition heals in one of three ways, each drawn often enough that a
// short run meets them all: delivering what it held (half), severed (a
// quarter), refused from its start (a quarter).
func TestPartitionsAreDeliveredSeveredOrRefused(t *testing.T) {
	s, err := New(11, []string{Partition}, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	const n = 400
	for range n {
		f := s.Next()
		switch {
		case f.Severed && f.Refused:
			t.Fatalf("%v: both severed and refused", f)
		case f.Severed:
			counts["severed"]++
		case f.Refused:
			counts["refused"]++
		default:
			counts["delivered"]++
		}
	}
	for flavor, want := range map[string]int{"delivered": n / 2, "severed": n / 4, "refused": n / 4} {
		if got := counts[flavor]; got < want*3/4 || got > want*5/4 {
			t.Errorf("%d of %d partitions %s, want about %d", got, n, flavor, want)
		}
	}
}
