package interop

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
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
// for the commands and JSON lines). It skips the test, or fails it under
// CI, when java, javac or the jar is missing.
func StartRateWorker(tb testing.TB, addr string) *Peer {
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
	p := startJava(tb, append(archiveFlags(jar), "-cp", cp, "RateWorker"), []string{"--addr", addr})
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
// compiled against jar, compiling them first unless the cache has them.
func rateWorkerClasses(jar string) (string, error) {
	src, err := os.ReadFile(rateWorkerSource)
	if err != nil {
		return "", err
	}
	fi, err := os.Stat(jar)
	if err != nil {
		return "", err
	}
	version, err := exec.Command("javac", "-version").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("javac -version: %v: %s", err, version)
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%d\x00%d\x00%s", src, jar, fi.Size(), fi.ModTime().UnixNano(), version)
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir := filepath.Join(cache, "relock-interop", "rate-worker-"+hex.EncodeToString(h.Sum(nil))[:16])
	if _, err := os.Stat(filepath.Join(dir, "RateWorker.class")); err == nil {
		return dir, nil
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "javac-*")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	if out, err := exec.Command("javac", "-nowarn", "-encoding", "UTF-8", "-cp", jar, "-d", tmp, rateWorkerSource).CombinedOutput(); err != nil {
		return "", fmt.Errorf("%v: %s", err, out)
	}
	// Another test process may have made it meanwhile: either copy serves.
	if err := os.Rename(tmp, dir); err != nil && !exists(filepath.Join(dir, "RateWorker.class")) {
		return "", err
	}
	return dir, nil
}

// exists reports whether path exists.
func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
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
