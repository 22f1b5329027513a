package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/relock-go/relock/bench/internal/harness"
)

// A tiny run prints a line per limiter and their ratios, and both
// limiters grant: each measured what it names.
func TestTinyRun(t *testing.T) {
	addr, stop, err := harness.Redis()
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	var out bytes.Buffer
	c := config{limit: 100, goroutines: 8, clients: 2, rounds: 1, warmup: 200 * time.Millisecond, duration: 500 * time.Millisecond, pace: 20 * time.Millisecond}
	if err := run(context.Background(), &out, addr, c); err != nil {
		t.Fatal(err)
	}
	for _, l := range limiters {
		if !strings.Contains(out.String(), "\n"+l.name+" ") {
			t.Fatalf("no %q line in:\n%s", l.name, out.String())
		}
	}
	if !strings.Contains(out.String(), "relock / redis_rate") {
		t.Fatalf("no ratios in:\n%s", out.String())
	}
}

// The busiest window counts the grants surely stamped in one window, at
// a call's start: a call that returned after the window's end is left out.
func TestBusiest(t *testing.T) {
	t0 := time.Unix(0, 0)
	ms := func(d int) time.Time { return t0.Add(time.Duration(d) * time.Millisecond) }
	calls := []call{{ms(0), ms(1)}, {ms(500), ms(501)}, {ms(999), ms(1000)}, {ms(1000), ms(1001)}, {ms(1200), ms(1201)}}
	if got := busiest(calls, time.Second); got != 4 {
		t.Fatalf("busiest = %d, want 4: [500ms, 1.5s) holds 500ms, 999ms, 1s and 1.2s", got)
	}
	// The call that began at 1.2 s returned at 1.6 s: its permit may have
	// been stamped after 1.5 s.
	calls[4].to = ms(1600)
	if got := busiest(calls, time.Second); got != 3 {
		t.Fatalf("busiest = %d, want 3: the call returning at 1.6 s is not surely in [500ms, 1.5s)", got)
	}
}
