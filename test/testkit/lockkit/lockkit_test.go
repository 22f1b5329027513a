package lockkit

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/relock-go/relock/rlock"
	"github.com/relock-go/relock/test/testenv"
	"github.com/relock-go/relock/test/testkit"
)

func TestMain(m *testing.M) { os.Exit(testenv.Main(m.Run)) }

func TestNewClientIsClosedWhenTheTestEnds(t *testing.T) {
	_, rdb := testkit.Miniredis(t)
	tb := testkit.NewRecorder(t)
	c := NewClient(tb, rdb, rlock.WithClientName("kit"))
	ctx := context.Background()
	m := c.NewMutex("k")
	if err := m.Lock(ctx); err != nil {
		t.Fatalf("Lock: %v", err)
	}
	if err := m.Unlock(ctx); err != nil {
		t.Fatalf("Unlock: %v", err)
	}
	tb.End()
	if err := c.NewMutex("k").Lock(ctx); !errors.Is(err, rlock.ErrClosed) {
		t.Fatalf("Lock after the test ended = %v, want ErrClosed", err)
	}
}

func TestNewClientFailsTheTestOnBadOptions(t *testing.T) {
	_, rdb := testkit.Miniredis(t)
	tb := testkit.NewRecorder(t)
	tb.Run(func(tb testing.TB) { NewClient(tb, rdb, rlock.WithWatchdogTimeout(-1)) })
	if !strings.Contains(tb.Failure, "rlock.New: ") || !strings.Contains(tb.Failure, "WithWatchdogTimeout") {
		t.Fatalf("NewClient with a negative watchdog timeout failed the test with %q, want rlock.New's error", tb.Failure)
	}
}
