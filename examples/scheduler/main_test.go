package main

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
)

// Every job runs, never more than k at once, though a worker died holding
// a slot; and their calls to the API keep to its rate: 48 calls, 10 at
// most in 100 ms, take 400 ms at least after the first ten (without the
// limiter, about 50 ms).
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
	least := time.Duration(len(calls)/apiRate.Limit-1) * apiRate.Interval
	if took := calls[len(calls)-1].Sub(calls[0]); took < least-10*time.Millisecond {
		t.Fatalf("%d calls to the API in %v; want %v at least, at %d in %v", len(calls), took, least, apiRate.Limit, apiRate.Interval)
	}
}
