package interop

import (
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/relock-go/relock/test/javac"
)

// The rate limiter's Java side is a program of the tests' own,
// java/RateWorker.java, compiled against the Redisson peer's jar on first
// use (javac: a JDK, not only a JRE) and kept in the user's cache
// directory, named after what it depends on: its source, the jar and the
// javac. It runs from the jar's class-data archive like the peer.

// rateWorkerSource is the program's source, beside the package.
const rateWorkerSource = "java/RateWorker.java"

var (
	rateWorkerOnce sync.Once
	rateWorkerDir  string // the compiled classes' directory
	rateWorkerErr  error
)

// StartRateWorker runs RateWorker on the server at addr until the test
// ends, and returns once it is ready for commands (Send; see its source
// for the commands and JSON lines); more are its flags (--cluster true:
// addr is a node of a Redis Cluster). It skips the test, or fails it
// under CI, when java, javac or the jar is missing.
func StartRateWorker(tb testing.TB, addr string, more ...string) *Peer {
	tb.Helper()
	jar := JarPath(tb)
	if _, err := exec.LookPath("javac"); err != nil {
		unavailable(tb, "no javac on the PATH, which compiles the rate limiter's Java side (Debian: apt-get install -y openjdk-17-jdk-headless)")
	}
	rateWorkerOnce.Do(func() { rateWorkerDir, rateWorkerErr = rateWorkerClasses(jar) })
	if rateWorkerErr != nil {
		tb.Fatalf("compiling %s: %v", rateWorkerSource, rateWorkerErr)
	}
	cp := jar + string(os.PathListSeparator) + rateWorkerDir
	p := startJava(tb, append(archiveFlags(jar), "-cp", cp, "RateWorker"), append([]string{"--addr", addr}, more...))
	p.Await(tb, "ready", time.Minute)
	return p
}

// Send sends RateWorker a command: its words, one line.
func (p *Peer) Send(tb testing.TB, words ...string) {
	tb.Helper()
	if _, err := io.WriteString(p.stdin, strings.Join(words, " ")+"\n"); err != nil {
		tb.Fatal(err)
	}
}

// rateWorkerClasses returns the directory of RateWorker's classes
// compiled against jar, from the user's cache when it has them
// (javac.Classes).
func rateWorkerClasses(jar string) (string, error) {
	return javac.Classes("relock-interop", jar, rateWorkerSource)
}

// Next returns the peer's next event, failing the test after d, when the
// peer exits first, or when it reports an error.
func (p *Peer) Next(tb testing.TB, d time.Duration) Event {
	tb.Helper()
	timeout := time.NewTimer(d)
	defer timeout.Stop()
	select {
	case ev, ok := <-p.events:
		switch {
		case !ok:
			tb.Fatalf("peer %v exited", p.args)
		case ev["event"] == "error":
			tb.Fatalf("peer %v: %v", p.args, ev["error"])
		}
		return ev
	case <-timeout.C:
		tb.Fatalf("nothing from peer %v within %v", p.args, d)
	}
	return nil
}
