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

// The busiest window counts the grants of one window, at its start.
func TestBusiest(t *testing.T) {
	t0 := time.Unix(0, 0)
	at := []time.Time{t0, t0.Add(500 * time.Millisecond), t0.Add(999 * time.Millisecond), t0.Add(time.Second), t0.Add(1200 * time.Millisecond)}
	if got := busiest(at, time.Second); got != 4 {
		t.Fatalf("busiest = %d, want 4: [500ms, 1.5s) holds 500ms, 999ms, 1s and 1.2s", got)
	}
}
