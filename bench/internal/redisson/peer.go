// Package redisson runs the Redisson test peer (redisson-peer.jar, real
// Redisson in a JVM; its README lies beside it in shared/interop) for the
// benchmarks: Java threads waiting on locks among relock's waiters.
package redisson

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Jar returns the peer's jar: RELOCK_REDISSON_PEER, or
// shared/interop/redisson-peer.jar beside the checkout that holds the
// working directory; an error when it or java is missing.
func Jar() (string, error) {
	if _, err := exec.LookPath("java"); err != nil {
		return "", errors.New("no java on the PATH (Debian: apt-get install -y openjdk-17-jre-headless)")
	}
	if jar := os.Getenv("RELOCK_REDISSON_PEER"); jar != "" {
		return jar, nil
	}
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		jar := filepath.Join(dir, "shared", "interop", "redisson-peer.jar")
		if _, err := os.Stat(jar); err == nil {
			return jar, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("redisson-peer.jar not found in a shared/interop above the working directory: set RELOCK_REDISSON_PEER")
		}
		dir = parent
	}
}

// Event is one JSON line of the peer.
type Event map[string]any

// Peer is a running peer.
type Peer struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	events chan Event // closed when its stdout ends
	stderr bytes.Buffer
	done   chan struct{} // closed once the process is waited for
}

// Start runs `java -jar jar args...`.
func Start(jar string, args ...string) (*Peer, error) {
	p := &Peer{events: make(chan Event, 16), done: make(chan struct{})}
	p.cmd = exec.Command("java", append([]string{"-jar", jar}, args...)...)
	p.cmd.Stderr = &p.stderr
	var err error
	if p.stdin, err = p.cmd.StdinPipe(); err != nil {
		return nil, err
	}
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := p.cmd.Start(); err != nil {
		return nil, err
	}
	go func() {
		defer close(p.done)
		defer close(p.events)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var ev Event
			if json.Unmarshal(sc.Bytes(), &ev) == nil {
				p.events <- ev
			}
		}
		_ = p.cmd.Wait() // once stdout is read to its end
	}()
	return p, nil
}

// Await returns the peer's first event named name ("summary": a worker's
// summary line, the one with a "side"), or an error when the peer
// reports one, exits first or ctx ends.
func (p *Peer) Await(ctx context.Context, name string) (Event, error) {
	for {
		select {
		case ev, ok := <-p.events:
			switch {
			case !ok:
				return nil, fmt.Errorf("redisson peer exited before %q: %s", name, p.log())
			case ev["event"] == "error":
				return nil, fmt.Errorf("redisson peer: %v", ev["error"])
			case ev["event"] == name, name == "summary" && ev["side"] != nil:
				return ev, nil
			}
		case <-ctx.Done():
			return nil, fmt.Errorf("no %q from the redisson peer: %w", name, ctx.Err())
		}
	}
}

// Go lets a peer started with --await-stdin run its mode.
func (p *Peer) Go() error {
	_, err := io.WriteString(p.stdin, "\n")
	return err
}

// Close kills the peer if it still runs and waits for it.
func (p *Peer) Close() {
	_ = p.cmd.Process.Kill()
	for range p.events {
	}
	<-p.done
}

// log is the end of the peer's stderr.
func (p *Peer) log() string {
	s := strings.TrimSpace(p.stderr.String())
	if len(s) > 2000 {
		s = s[len(s)-2000:]
	}
	return s
}
