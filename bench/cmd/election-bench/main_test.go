package main

import (
	"bytes"
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/relock-go/relock/bench/internal/harness"
)

// A tiny run prints a line per kind of hand-over, each of the hand-overs
// asked for.
func TestTinyRun(t *testing.T) {
	self := filepath.Join(t.TempDir(), "election-bench")
	if out, err := exec.Command("go", "build", "-o", self, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	addr, stop, err := harness.Redis()
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	var out bytes.Buffer
	c := config{rounds: 1, resigns: 5, kills: 1, candidates: 3, lease: 500 * time.Millisecond}
	if err := run(context.Background(), &out, addr, self, c); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Resign                      5 ", "kill -9 (lease 500ms)       1 "} {
		if !strings.Contains(out.String(), want) {
			t.Fatalf("no %q in:\n%s", want, out.String())
		}
	}
}
