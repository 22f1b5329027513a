package testenv

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/relock-go/relock/pubsub"
	"github.com/relock-go/relock/test/faultproxy"
	"github.com/relock-go/relock/test/testkit"
)

// shortGrace keeps the tests that expect a report fast.
const shortGrace = 50 * time.Millisecond

// idleProxy starts a faultproxy, whose accept loop is a goroutine of the
// module blocked in its code until Close: a real leak when not closed. The
// target is never dialled, since no client connects.
func idleProxy(t *testing.T) *faultproxy.Proxy { return testkit.StartProxy(t, "127.0.0.1:1") }

// proxyGoroutine is in the stack of the proxy's accept loop, whether or
// not it has started running.
const proxyGoroutine = "created by github.com/relock-go/relock/test/faultproxy.Start"

// A pub/sub Hub of the library that is not closed leaves its goroutines
// running, and the leak check that every test package runs reports them;
// once it is closed, the check passes.
func TestLeaksReportsALibraryGoroutineLeftRunning(t *testing.T) {
	before := goleak.IgnoreCurrent()
	mr, rdb := testkit.Miniredis(t)
	hub := pubsub.New(rdb, pubsub.Options{})
	err := Leaks(shortGrace, before)
	if err == nil || !strings.Contains(err.Error(), "github.com/relock-go/relock/pubsub.(*shard).readLoop") {
		t.Errorf("Leaks with a Hub running = %v, want its read loop reported", err)
	}
	if err := hub.Close(); err != nil {
		t.Fatal(err)
	}
	_ = rdb.Close()
	mr.Close()
	if err := Leaks(Grace, before); err != nil {
		t.Fatalf("Leaks after Close: %v", err)
	}
}

func TestCheckLeaksReportsGoroutineLeftRunning(t *testing.T) {
	rec := testkit.NewRecorder(t)
	checkLeaksWith(rec, shortGrace)
	p := idleProxy(t)
	rec.End()
	if len(rec.Errors) != 1 || !strings.Contains(rec.Errors[0], proxyGoroutine) {
		t.Fatalf("got reports %q, want one with the proxy's accept loop", rec.Errors)
	}
	_ = p.Close()
}

func TestCheckLeaksPassesWhenGoroutinesStop(t *testing.T) {
	rec := testkit.NewRecorder(t)
	checkLeaksWith(rec, Grace)
	p := idleProxy(t)
	rec.Cleanups = append(rec.Cleanups, func() { _ = p.Close() })
	start := time.Now()
	rec.End()
	if len(rec.Errors) != 0 {
		t.Fatalf("reports after Close: %q", rec.Errors)
	}
	if d := time.Since(start); d > Grace/2 {
		t.Errorf("a clean check took %v: it should end as soon as the goroutines are gone", d)
	}
}

func TestCheckLeaksIgnoresGoroutinesThatExistedBefore(t *testing.T) {
	idleProxy(t) // closed at the end of this test, after the check
	rec := testkit.NewRecorder(t)
	checkLeaksWith(rec, shortGrace)
	rec.End()
	if len(rec.Errors) != 0 {
		t.Fatalf("reports for a goroutine started before CheckLeaks: %q", rec.Errors)
	}
}

func TestMainFailsPackageThatLeaks(t *testing.T) {
	var p *faultproxy.Proxy
	var out bytes.Buffer
	code := mainWith(func() int {
		var err error
		if p, err = faultproxy.Start("127.0.0.1:1"); err != nil {
			t.Fatal(err)
		}
		return 0
	}, &out, shortGrace)
	defer p.Close()
	if code != 1 {
		t.Errorf("exit code %d, want 1", code)
	}
	if !strings.Contains(out.String(), proxyGoroutine) {
		t.Errorf("output lacks the leaked stack:\n%s", out.String())
	}
}

func TestMainPassesCleanPackage(t *testing.T) {
	var out bytes.Buffer
	code := mainWith(func() int {
		p, err := faultproxy.Start("127.0.0.1:1")
		if err != nil {
			t.Fatal(err)
		}
		_ = p.Close()
		return 0
	}, &out, Grace)
	if code != 0 || out.Len() != 0 {
		t.Fatalf("exit code %d, output %q; want 0 and none", code, out.String())
	}
}

func TestMainKeepsFailureCodeWithoutChecking(t *testing.T) {
	p := idleProxy(t)
	var out bytes.Buffer
	if code := mainWith(func() int { return 3 }, &out, shortGrace); code != 3 || out.Len() != 0 {
		t.Fatalf("exit code %d, output %q; want 3 and none", code, out.String())
	}
	_ = p.Close()
}
