package main

import (
	"context"
	"io"
	"os"
	"testing"
	"time"

	"github.com/relock-go/relock/test/redistest"
	"github.com/relock-go/relock/test/testenv"
)

// TestMain fails the package if a goroutine of the module outlives its tests.
func TestMain(m *testing.M) { os.Exit(testenv.Main(m.Run)) }

// Three schedulers fire every tick of the report, and each tick runs once.
func TestEachTickRunsOnce(t *testing.T) {
	srv, err := redistest.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	runs, err := run(ctx, io.Discard, srv.Addr, 3, 4*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) < 3 {
		t.Errorf("%d ticks run in 4 s: %v", len(runs), runs)
	}
	for tick, n := range runs {
		if n != 1 {
			t.Errorf("tick %s ran %d times", tick.Format(time.TimeOnly), n)
		}
	}
}
