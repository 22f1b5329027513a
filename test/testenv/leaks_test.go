package testenv

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"
	"go.uber.org/goleak"

	"github.com/relock-go/relock/pubsub"
	"github.com/relock-go/relock/test/faultproxy"
)

// shortGrace keeps the tests that expect a report fast.
const shortGrace = 50 * time.Millisecond

// startProxy starts a faultproxy, whose accept loop is a goroutine of the
// module blocked in its code until Close: a real leak when not closed. The
// target is never dialled, since no client connects.
func startProxy(t *testing.T) *faultproxy.Proxy {
	t.Helper()
	p, err := faultproxy.Start("127.0.0.1:1")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	return p
}

// proxyGoroutine is in the stack of the proxy's accept loop, whether or
// not it has started running.
const proxyGoroutine = "created by github.com/relock-go/relock/test/faultproxy.Start"

// A pub/sub Hub of the library that is not closed leaves its goroutines
// running, and the leak check that every test package runs reports them;
// once it is closed, the check passes.
func TestLeaksReportsALibraryGoroutineLeftRunning(t *testing.T) {
	before := goleak.IgnoreCurrent()
	mr := miniredis.RunT(t)
	rdb := redis.NewClient(&redis.Options{Addr: mr.Addr()})
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

// leakRecorder is a testing.TB that records what CheckLeaks does with it
// instead of failing the real test.
type leakRecorder struct {
	testing.TB
	cleanups []func()
	errors   []string
}

func (r *leakRecorder) Helper()          {}
func (r *leakRecorder) Cleanup(f func()) { r.cleanups = append(r.cleanups, f) }
func (r *leakRecorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

// end runs the recorded cleanups as the testing package does: last first.
func (r *leakRecorder) end() {
	for i := len(r.cleanups) - 1; i >= 0; i-- {
		r.cleanups[i]()
	}
}

func TestCheckLeaksReportsGoroutineLeftRunning(t *testing.T) {
	rec := &leakRecorder{}
	checkLeaksWith(rec, shortGrace)
	p := startProxy(t)
	rec.end()
	if len(rec.errors) != 1 || !strings.Contains(rec.errors[0], proxyGoroutine) {
		t.Fatalf("got reports %q, want one with the proxy's accept loop", rec.errors)
	}
	_ = p.Close()
}

func TestCheckLeaksPassesWhenGoroutinesStop(t *testing.T) {
	rec := &leakRecorder{}
	checkLeaksWith(rec, Grace)
	p := startProxy(t)
	rec.cleanups = append(rec.cleanups, func() { _ = p.Close() })
	start := time.Now()
	rec.end()
	if len(rec.errors) != 0 {
		t.Fatalf("reports after Close: %q", rec.errors)
	}
	if d := time.Since(start); d > Grace/2 {
		t.Errorf("a clean check took %v: it should end as soon as the goroutines are gone", d)
	}
}

func TestCheckLeaksIgnoresGoroutinesThatExistedBefore(t *testing.T) {
	startProxy(t) // closed at the end of this test, after the check
	rec := &leakRecorder{}
	checkLeaksWith(rec, shortGrace)
	rec.end()
	if len(rec.errors) != 0 {
		t.Fatalf("reports for a goroutine started before CheckLeaks: %q", rec.errors)
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
	p := startProxy(t)
	var out bytes.Buffer
	if code := mainWith(func() int { return 3 }, &out, shortGrace); code != 3 || out.Len() != 0 {
		t.Fatalf("exit code %d, output %q; want 3 and none", code, out.String())
	}
	_ = p.Close()
}
