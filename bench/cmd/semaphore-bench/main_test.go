package main

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

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

// In every way of waiting, a run of 8 goroutines on 2 permits holds both
// permits at once and never more, acquires, and leaves the 2 permits
// available when it ends: it measures the semaphore it names.
func TestRunHoldsKPermits(t *testing.T) {
	addr, stop, err := harness.Redis()
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	rdb := redis.NewClient(&redis.Options{Addr: addr})
	defer rdb.Close()
	c := config{permits: 2, goroutines: 8, clients: 2, rounds: 1, duration: 300 * time.Millisecond, hold: 5 * time.Millisecond}
	for i, m := range modes {
		res, err := once(context.Background(), rdb, m, c, fmt.Sprintf("bench:sem:test:%d", i))
		if err != nil {
			t.Fatal(err)
		}
		if res.perSec <= 0 || res.maxHeld != c.permits || res.left != c.permits {
			t.Errorf("%s: %.0f acquisitions/s, at most %d held at once, %d available after; want acquisitions, %d held at once, %d after",
				m.name, res.perSec, res.maxHeld, res.left, c.permits, c.permits)
		}
	}
}
