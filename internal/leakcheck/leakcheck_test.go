package leakcheck

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/relock-go/relock/test/faultproxy"
	"github.com/relock-go/relock/test/redistest"
)

func TestMain(m *testing.M) { os.Exit(Main(m.Run)) }

// shortGrace keeps the tests that expect a report fast.
const shortGrace = 50 * time.Millisecond

// startProxy starts a faultproxy, whose accept loop is a goroutine of the
// module blocked in library code until Close: a real leak when not closed.
// The target is never dialled, since no client connects.
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

// recorder is a testing.TB that records what Check does with it instead
// of failing the real test.
type recorder struct {
	testing.TB
	cleanups []func()
	errors   []string
}

func (r *recorder) Helper()          {}
func (r *recorder) Cleanup(f func()) { r.cleanups = append(r.cleanups, f) }
func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

// end runs the recorded cleanups as the testing package does: last first.
func (r *recorder) end() {
	for i := len(r.cleanups) - 1; i >= 0; i-- {
		r.cleanups[i]()
	}
}

func TestCheckReportsGoroutineLeftRunning(t *testing.T) {
	rec := &recorder{}
	checkWith(rec, shortGrace)
	p := startProxy(t)
	rec.end()
	if len(rec.errors) != 1 {
		t.Fatalf("got %d reports, want 1: %q", len(rec.errors), rec.errors)
	}
	report := rec.errors[0]
	for _, want := range []string{"1 goroutine(s)", "goroutine ", proxyGoroutine} {
		if !strings.Contains(report, want) {
			t.Errorf("report lacks %q:\n%s", want, report)
		}
	}
	_ = p.Close()
}

func TestCheckPassesWhenGoroutinesStop(t *testing.T) {
	rec := &recorder{}
	checkWith(rec, Grace)
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

func TestCheckIgnoresGoroutinesThatExistedBefore(t *testing.T) {
	startProxy(t) // closed at the end of this test, after the check
	rec := &recorder{}
	checkWith(rec, shortGrace)
	rec.end()
	if len(rec.errors) != 0 {
		t.Fatalf("reports for a goroutine started before Check: %q", rec.errors)
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

func TestGoroutinesCountsLibraryCodeOnly(t *testing.T) {
	tests := []struct {
		name  string
		stack string
		ours  bool
	}{
		{"blocked in library code", `goroutine 7 [select]:
github.com/relock-go/relock/pubsub.(*shard).writeLoop(0xc000120000)
	/src/relock/pubsub/shard.go:120 +0x8f
created by github.com/relock-go/relock/pubsub.New in goroutine 6
	/src/relock/pubsub/hub.go:40 +0x1a5`, true},
		{"started by library code, running a dependency", `goroutine 9 [IO wait]:
github.com/redis/go-redis/v9/internal/pool.(*ConnPool).reaper(0xc000130000)
	/go/pkg/mod/github.com/redis/go-redis/v9@v9.22.0/internal/pool/pool.go:500 +0x55
created by github.com/relock-go/relock/test/redistest.launch in goroutine 1
	/src/relock/internal/redistest/redistest.go:104 +0x2b`, true},
		{"test code calling library code", `goroutine 12 [chan receive]:
github.com/relock-go/relock/rlock.(*owner).acquireWith(0xc000140000)
	/src/relock/rlock/owner.go:180 +0x2f
github.com/relock-go/relock/rlock.TestX.func1()
	/src/relock/rlock/mutex_test.go:33 +0x25
created by github.com/relock-go/relock/rlock.TestX in goroutine 11
	/src/relock/rlock/mutex_test.go:32 +0x1c`, true},
		{"test code only", `goroutine 13 [chan receive]:
github.com/relock-go/relock/rlock.TestX.func1()
	/src/relock/rlock/mutex_test.go:33 +0x25
created by github.com/relock-go/relock/rlock.TestX in goroutine 11
	/src/relock/rlock/mutex_test.go:32 +0x1c`, false},
		{"the testing framework", `goroutine 1 [chan receive]:
testing.(*T).Run(0xc000150000, {0x6b0000, 0x4}, 0x6c0000)
	/usr/local/go/src/testing/testing.go:2109 +0x4e5
main.main()
	_testmain.go:46 +0x9b`, false},
		{"the main goroutine in a TestMain of library code", `goroutine 1 [chan receive]:
testing.(*M).Run(0xc000170000)
	/usr/local/go/src/testing/testing.go:2443 +0x6ac
github.com/relock-go/relock/test/redistest.Main(0xc000170000, 0x8d0000)
	/src/relock/internal/redistest/redistest.go:222 +0x85
github.com/relock-go/relock/internal/leakcheck.Main(...)
	/src/relock/internal/leakcheck/leakcheck.go:53
github.com/relock-go/relock/rlock.TestMain(0xc000170000)
	/src/relock/rlock/main_test.go:19 +0x3e
main.main()
	_testmain.go:46 +0x9b`, false},
		{"a dependency started by a dependency", `goroutine 20 [select]:
github.com/alicebob/miniredis/v2/server.(*Server).serve(0xc000160000)
	/go/pkg/mod/github.com/alicebob/miniredis/v2@v2.35.0/server/server.go:90 +0x85
created by github.com/alicebob/miniredis/v2/server.NewServer in goroutine 19
	/go/pkg/mod/github.com/alicebob/miniredis/v2@v2.35.0/server/server.go:60 +0x1c5`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, ok := parse(tt.stack)
			if !ok {
				t.Fatalf("stack not parsed:\n%s", tt.stack)
			}
			if got := g.ours(); got != tt.ours {
				t.Errorf("ours() = %v, want %v", got, tt.ours)
			}
		})
	}
}

func TestGoroutinesSeesLiveGoroutinesButNotTheCaller(t *testing.T) {
	// An earlier test's proxy may still be returning from its last function.
	redistest.Eventually(t, 5*time.Second, "no goroutine of the module before any started", func() bool {
		return len(Goroutines()) == 0
	})
	p := startProxy(t)
	gs := Goroutines()
	if len(gs) != 1 || !strings.Contains(gs[0], proxyGoroutine) {
		t.Fatalf("got %d goroutines, want the proxy's accept loop:\n%s", len(gs), strings.Join(gs, "\n\n"))
	}
	_ = p.Close()
}

func TestBlockedSeesAWaitingGoroutine(t *testing.T) {
	p := startProxy(t)
	// The proxy's accept loop waits for connections: blocked, not running.
	redistest.Eventually(t, 5*time.Second, "accept loop blocked", func() bool {
		gs := Blocked()
		return len(gs) == 1 && strings.Contains(gs[0], proxyGoroutine)
	})
	_ = p.Close()
	redistest.Eventually(t, 5*time.Second, "no goroutine after Close", func() bool { return len(Goroutines()) == 0 })
	if gs := Blocked(); len(gs) != 0 {
		t.Fatalf("blocked goroutines after Close:\n%s", strings.Join(gs, "\n\n"))
	}
}
