package testenv

import (
	"strings"
	"testing"
	"time"

	"github.com/relock-go/relock/test/testkit"
)

func TestGoroutinesCountsCodeOfTheModuleOnly(t *testing.T) {
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
		{"started by code of the module, running a dependency", `goroutine 9 [IO wait]:
github.com/redis/go-redis/v9/internal/pool.(*ConnPool).reaper(0xc000130000)
	/go/pkg/mod/github.com/redis/go-redis/v9@v9.22.0/internal/pool/pool.go:500 +0x55
created by github.com/relock-go/relock/test/redistest.launch in goroutine 1
	/src/relock/test/redistest/redistest.go:104 +0x2b`, true},
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
		{"the main goroutine in a TestMain of code of the module", `goroutine 1 [chan receive]:
testing.(*M).Run(0xc000170000)
	/usr/local/go/src/testing/testing.go:2443 +0x6ac
github.com/relock-go/relock/test/redistest.Main(0xc000170000, 0x8d0000)
	/src/relock/test/redistest/redistest.go:222 +0x85
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
			if got := isModules(tt.stack); got != tt.ours {
				t.Errorf("isModules = %v, want %v", got, tt.ours)
			}
		})
	}
}

func TestGoroutinesSeesLiveGoroutinesButNotTheCaller(t *testing.T) {
	// An earlier test's proxy may still be returning from its last function.
	testkit.Eventually(t, 5*time.Second, "no goroutine of the module before any started", func() bool { return len(Goroutines()) == 0 })
	p := idleProxy(t)
	gs := Goroutines()
	if len(gs) != 1 || !strings.Contains(gs[0], proxyGoroutine) {
		t.Fatalf("got %d goroutines, want the proxy's accept loop:\n%s", len(gs), strings.Join(gs, "\n\n"))
	}
	_ = p.Close()
}

func TestBlockedSeesAWaitingGoroutine(t *testing.T) {
	p := idleProxy(t)
	// The proxy's accept loop waits for connections: blocked, not running.
	testkit.Eventually(t, 5*time.Second, "accept loop blocked", func() bool {
		gs := Blocked()
		return len(gs) == 1 && strings.Contains(gs[0], proxyGoroutine)
	})
	_ = p.Close()
	testkit.Eventually(t, 5*time.Second, "no goroutine after Close", func() bool { return len(Goroutines()) == 0 })
	if gs := Blocked(); len(gs) != 0 {
		t.Fatalf("blocked goroutines after Close:\n%s", strings.Join(gs, "\n\n"))
	}
}
