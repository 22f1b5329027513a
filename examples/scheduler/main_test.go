package main

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
)

// Every job runs, never more than k at once, though a worker died holding
// a slot.
func TestScheduler(t *testing.T) {
	m := miniredis.RunT(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	most, err := run(ctx, io.Discard, m.Addr(), 6, 2)
	if err != nil {
		t.Fatal(err)
	}
	if most < 1 || most > 2 {
		t.Fatalf("%d jobs ran at once; want at most 2", most)
	}
}
