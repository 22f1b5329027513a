package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/relock-go/relock/bench/internal/harness"
)

// A tiny run prints a line per way of waiting.
func TestTinyRun(t *testing.T) {
	addr, stop, err := harness.Redis()
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	var out bytes.Buffer
	c := config{permits: 2, goroutines: 8, clients: 2, rounds: 1, duration: 200 * time.Millisecond, hold: time.Millisecond}
	if err := run(context.Background(), &out, addr, c); err != nil {
		t.Fatal(err)
	}
	for _, m := range modes {
		if !strings.Contains(out.String(), m.name) {
			t.Fatalf("no %q line in:\n%s", m.name, out.String())
		}
	}
}
