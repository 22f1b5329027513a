package main

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
)

// Every job runs, never more than k at once, though a worker died holding
// a slot; and their calls to the API keep to its rate. (The calls are
// timed as they return, after the limiter stamped them: a window of the
// interval less a few milliseconds holds no more than the limit.)
func TestScheduler(t *testing.T) {
	m := miniredis.RunT(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	most, calls, err := run(ctx, io.Discard, m.Addr(), 6, 2)
	if err != nil {
		t.Fatal(err)
	}
	if most < 1 || most > 2 {
		t.Fatalf("%d jobs ran at once; want at most 2", most)
	}
	if len(calls) != 3*(1+5*3) {
		t.Fatalf("%d calls to the API; want 3 for each of the 16 jobs", len(calls))
	}
	if n := busiest(calls, apiRate.Interval-5*time.Millisecond); n > apiRate.Limit {
		t.Fatalf("%d calls to the API within %v; want at most %d", n, apiRate.Interval, apiRate.Limit)
	}
}
