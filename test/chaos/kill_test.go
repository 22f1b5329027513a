package chaos

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/relock-go/relock/internal/keys"
	"github.com/relock-go/relock/rlock"
	"github.com/relock-go/relock/test/testkit"
	"github.com/relock-go/relock/test/testkit/lockkit"
)

// holderBin is the holder command, built once per run of the package.
var holderBin struct {
	once sync.Once
	dir  string // removed by TestMain
	path string
	err  error
	out  []byte
}

// holderPath builds the holder command (package ./holder) on first use and
// returns its path.
func holderPath(t *testing.T) string {
	t.Helper()
	holderBin.once.Do(func() {
		holderBin.dir, holderBin.err = os.MkdirTemp("", "relock-holder-")
		if holderBin.err != nil {
			return
		}
		holderBin.path = filepath.Join(holderBin.dir, "holder")
		cmd := exec.Command("go", "build", "-o", holderBin.path, "./holder")
		holderBin.out, holderBin.err = cmd.CombinedOutput()
	})
	if holderBin.err != nil {
		t.Fatalf("go build ./holder: %v\n%s", holderBin.err, holderBin.out)
	}
	return holderBin.path
}

// removeHolder removes the built holder command, if any.
func removeHolder() {
	if holderBin.dir != "" {
		_ = os.RemoveAll(holderBin.dir)
	}
}

// process is a running holder command.
type process struct {
	cmd   *exec.Cmd
	owner string
	lines *bufio.Scanner
}

// startHolder starts the holder command with args and reads its owner id.
// The process is killed when the test ends, if the test did not kill it.
func startHolder(t *testing.T, args ...string) *process {
	t.Helper()
	p := startProcess(t, holderPath(t), append([]string{"-addr", srv.Addr}, args...)...)
	owner, ok := strings.CutPrefix(p.next(t), "owner ")
	if !ok {
		t.Fatal("holder did not print its owner id")
	}
	p.owner = owner
	return p
}

// startProcess starts the command bin with args, its stdout to be read
// line by line. The process is killed when the test ends, if the test did
// not kill it.
func startProcess(t *testing.T, bin string, args ...string) *process {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	return &process{cmd: cmd, lines: bufio.NewScanner(out)}
}

// next returns the process's next line of output.
func (p *process) next(t *testing.T) string {
	t.Helper()
	if !p.lines.Scan() {
		t.Fatalf("holder exited early: %v", p.lines.Err())
	}
	return p.lines.Text()
}

// kill kills the process with SIGKILL and reaps it.
func (p *process) kill(t *testing.T) {
	t.Helper()
	if err := p.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = p.cmd.Wait()
}

func TestKilledHolderReleasesWithinItsLease(t *testing.T) {
	fresh(t)
	ctx := testkit.Ctx(t, within)
	const lease = time.Second
	const name = "killed-holder"
	proc := startHolder(t, "-name", name, "-mode", "hold", "-lease", lease.String())
	if line := proc.next(t); line != "held" {
		t.Fatalf("holder printed %q, want held", line)
	}
	m := lockkit.NewClient(t, direct(t)).NewMutex(name)
	if ok, err := m.TryLock(ctx, 0, 0); ok || err != nil {
		t.Fatalf("TryLock of the live holder's lock = %v, %v; want false", ok, err)
	}

	proc.kill(t)
	killed := time.Now()
	if err := m.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	// The lease ran from the holder's last renewal, at most lease before
	// the kill; the waiter wakes when its last look at the TTL runs out.
	if d := time.Since(killed); d > lease+timerSlack {
		t.Fatalf("lock free %v after its holder was killed, want within its lease %v", d, lease)
	}
	if err := m.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestKilledFairWaiterLeavesTheQueue(t *testing.T) {
	fresh(t)
	ctx := testkit.Ctx(t, within)
	const fairWait = 600 * time.Millisecond
	const name = "killed-waiter"
	opts := []rlock.Option{rlock.WithFairWaitTimeout(fairWait)}
	holder := lockkit.NewClient(t, direct(t), opts...).NewFairMutex(name)
	if err := holder.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	admin := direct(t)
	queue := func() []string {
		q, err := admin.LRange(ctx, keys.Queue(name), 0, -1).Result()
		if err != nil {
			t.Fatal(err)
		}
		return q
	}
	// The process queues first, a live waiter behind it.
	proc := startHolder(t, "-name", name, "-mode", "queue", "-fair-wait", fairWait.String())
	testkit.Eventually(t, within, "the process queued", func() bool { return slices.Contains(queue(), proc.owner) })
	live := lockkit.NewClient(t, direct(t), opts...).NewFairMutex(name)
	done := make(chan error, 1)
	go func() { done <- live.Lock(ctx) }()
	testkit.Eventually(t, within, "the live waiter queued behind the process", func() bool {
		return slices.Equal(queue(), []string{proc.owner, live.Owner()})
	})

	proc.kill(t)
	released := time.Now()
	if err := holder.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	// The dead head's deadline runs out at most one wait timeout after its
	// last refresh; the live waiter's next heartbeat (fairWait/3) evicts
	// it and takes the lock.
	bound := fairWait + fairWait/3 + timerSlack
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(bound + within):
		t.Fatalf("queue stuck behind the killed waiter for %v", time.Since(released))
	}
	if d := time.Since(released); d > bound {
		t.Fatalf("live waiter acquired %v after the release, want within about the fair wait timeout (%v)", d, bound)
	}
	if q := queue(); slices.Contains(q, proc.owner) {
		t.Fatalf("killed waiter still queued: %v", q)
	}
	if err := live.Unlock(context.Background()); err != nil {
		t.Fatal(err)
	}
}
