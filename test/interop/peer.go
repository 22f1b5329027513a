package interop

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/relock-go/relock/test/testenv"
)

// Peer is a running Redisson test peer.
type Peer struct {
	cmd    *exec.Cmd
	args   []string
	stdin  io.WriteCloser
	events chan Event // its JSON lines; closed when its stdout ends
}

// Event is one JSON line of the peer.
type Event map[string]any

// Float is the number under key, or 0.
func (e Event) Float(key string) float64 {
	f, _ := e[key].(float64)
	return f
}

// Redis is the peer's snapshot of the lock's key ("redis").
func (e Event) Redis() Event {
	m, _ := e["redis"].(map[string]any)
	return m
}

// JarPath is the Redisson peer's jar: RELOCK_REDISSON_PEER, or
// shared/interop/redisson-peer.jar beside the repository. It skips the
// test (fails it under CI) when the jar or java is missing.
func JarPath(tb testing.TB) string {
	tb.Helper()
	jar := os.Getenv("RELOCK_REDISSON_PEER")
	if jar == "" {
		root, err := repoRoot()
		if err != nil {
			unavailable(tb, err.Error())
		}
		jar = filepath.Join(filepath.Dir(root), "shared", "interop", "redisson-peer.jar")
	}
	if _, err := os.Stat(jar); err != nil {
		unavailable(tb, "Redisson peer not found at "+jar+"; set RELOCK_REDISSON_PEER")
	}
	if _, err := exec.LookPath("java"); err != nil {
		unavailable(tb, "no java on the PATH (Debian: apt-get install -y openjdk-17-jdk-headless)")
	}
	if v, ok := javaMajor(); !ok || v < 17 {
		unavailable(tb, "java on the PATH is not Java 17 or later (Debian: apt-get install -y openjdk-17-jdk-headless)")
	}
	return jar
}

// unavailable skips the test, loudly, or fails it under CI.
func unavailable(tb testing.TB, why string) {
	tb.Helper()
	testenv.Unavailable(tb, "the Redisson interop tests need Java 17 and the Redisson peer: "+why,
		"make interop (RELOCK_REDISSON_PEER=/path/to/redisson-peer.jar)")
}

// javaMajor is the major version of the java on the PATH, from the first
// line `java -version` prints (`openjdk version "17.0.15" ...`).
func javaMajor() (int, bool) {
	out, err := exec.Command("java", "-version").CombinedOutput()
	if err != nil {
		return 0, false
	}
	_, rest, ok := strings.Cut(string(out), `version "`)
	if !ok {
		return 0, false
	}
	major, _, _ := strings.Cut(rest, ".")
	v, err := strconv.Atoi(strings.TrimSuffix(major, `"`))
	return v, err == nil
}

// repoRoot is the directory of the go.mod of module
// github.com/relock-go/relock, found upwards from the working directory.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && strings.HasPrefix(string(b), "module github.com/relock-go/relock\n") {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", os.ErrNotExist
		}
		dir = parent
	}
}

// Start runs `java -jar redisson-peer.jar args...` until the test ends.
func Start(tb testing.TB, args ...string) *Peer {
	tb.Helper()
	jar := JarPath(tb)
	return startJava(tb, slices.Concat(archiveFlags(jar), jitFlags(args), []string{"-jar", jar}), args)
}

// startJava runs `java jvm... args...` until the test ends, reading its
// JSON lines.
func startJava(tb testing.TB, jvm, args []string) *Peer {
	tb.Helper()
	cmd := exec.Command("java", slices.Concat(jvm, args)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		unavailable(tb, "cannot run java: "+err.Error())
	}
	p := &Peer{cmd: cmd, args: args, stdin: stdin, events: make(chan Event, 64)}
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		defer close(p.events)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var ev Event
			if json.Unmarshal(sc.Bytes(), &ev) != nil {
				continue
			}
			select {
			case p.events <- ev:
			case <-quit: // the test is over: read on to the end
			}
		}
		_ = cmd.Wait() // only once stdout is read to its end
	}()
	tb.Cleanup(func() {
		close(quit)
		_ = cmd.Process.Kill()
		<-done
		checkLog(tb, args, stderr.String())
		if tb.Failed() {
			tb.Logf("peer %v stderr:\n%s", args, stderr.String())
		}
	})
	return p
}

// jitFlags are the JVM flags of a peer run with args: a peer that only
// takes, waits for or probes a few locks compiles its code with the quick
// compiler alone (C1), which spares a third of its start-up CPU; a worker,
// whose throughput and wait times tests compare with Go's, gets the JVM's
// full compiler.
func jitFlags(args []string) []string {
	if slices.Contains(args, "worker") {
		return nil
	}
	return []string{"-XX:TieredStopAtLevel=1"}
}

// decodeErrors are what Redisson logs when a message on a channel it
// listens on is not one its codec reads (a lock channel's are numbers):
// relock must never publish one there.
var decodeErrors = []string{"Unable to decode", "NumberFormatException"}

// checkLog fails the test if the log of the peer run with args shows that
// Redisson could not decode a message: every mixed test checks it.
func checkLog(tb testing.TB, args []string, log string) {
	tb.Helper()
	for _, e := range decodeErrors {
		if strings.Contains(log, e) {
			tb.Errorf("peer %v logged %q:\n%s", args, e, log)
			return
		}
	}
}

// Await returns the peer's first event named name (the line with key
// "side" for name "summary"), failing the test after d or when the peer
// exits first, or reports an error.
func (p *Peer) Await(tb testing.TB, name string, d time.Duration) Event {
	tb.Helper()
	timeout := time.NewTimer(d)
	defer timeout.Stop()
	for {
		select {
		case ev, ok := <-p.events:
			switch {
			case !ok:
				tb.Fatalf("peer %v exited before %q", p.args, name)
			case ev["event"] == "error":
				tb.Fatalf("peer %v: %v", p.args, ev["error"])
			case ev["event"] == name, name == "summary" && ev["side"] != nil:
				return ev
			}
		case <-timeout.C:
			tb.Fatalf("no %q from peer %v within %v", name, p.args, d)
		}
	}
}

// Go releases a peer started with --await-stdin, once it is ready.
func (p *Peer) Go(tb testing.TB) {
	tb.Helper()
	if _, err := io.WriteString(p.stdin, "\n"); err != nil {
		tb.Fatal(err)
	}
}

// Kill kills the peer's process at once, as a crash would: its
// connections close, and nothing it holds or waits for is given up.
func (p *Peer) Kill(tb testing.TB) {
	tb.Helper()
	if err := p.cmd.Process.Kill(); err != nil {
		tb.Fatal(err)
	}
}

// Millis is t in epoch milliseconds, the peer's clock.
func Millis(t time.Time) float64 { return float64(t.UnixNano()) / 1e6 }
