package main

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
)

// Each night's job runs once, by one instance at a time, though each
// leader dies after its night.
func TestNightly(t *testing.T) {
	m := miniredis.RunT(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	runs, most, err := nightly(ctx, io.Discard, m.Addr(), 4, 3)
	if err != nil {
		t.Fatal(err)
	}
	if runs != 3 || most != 1 {
		t.Fatalf("%d nights ran, at most %d at once; want 3, and 1", runs, most)
	}
}
