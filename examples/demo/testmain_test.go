package main

import (
	"os"
	"testing"

	"github.com/relock-go/relock/internal/leakcheck"
)

// TestMain fails the package if a goroutine of the module outlives its tests.
func TestMain(m *testing.M) { os.Exit(leakcheck.Main(m.Run)) }
