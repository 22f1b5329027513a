package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/internal/keys"
	"github.com/relock-go/relock/rlock"
	"github.com/relock-go/relock/test/redistest"
	"github.com/relock-go/relock/test/testenv"
	"github.com/relock-go/relock/test/testkit"
	"github.com/relock-go/relock/test/testkit/lockkit"
)

var (
	// srv is the redis-server the tests' locks and the relock binary share.
	srv *redistest.Server
	// bin is the relock binary, built once by TestMain.
	bin string
	// cluster is a Redis Cluster of one master, which TestMain starts
	// beside the build and the other tests (it takes 2s or more);
	// clusterErr is why not. Both are set when clusterReady is closed.
	cluster      *redistest.Cluster
	clusterErr   error
	clusterReady = make(chan struct{})
)

// TestMain builds the relock binary, runs the tests on a real
// redis-server (and a cluster), and fails the package if a goroutine of
// the module outlives them.
func TestMain(m *testing.M) {
	os.Exit(testenv.Main(func() int {
		go func() {
			defer close(clusterReady)
			cluster, clusterErr = redistest.StartCluster(1, 0)
		}()
		defer func() {
			if <-clusterReady; cluster != nil {
				_ = cluster.Close()
			}
		}()
		dir, err := os.MkdirTemp("", "relock-cmd-")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer os.RemoveAll(dir)
		bin = filepath.Join(dir, "relock")
		if err := build(bin); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		return redistest.Main(m, &srv)
	}))
}

// build builds the package's command into out, with the go command that
// runs the tests: go test puts its GOROOT/bin first on the PATH.
func build(out string) error {
	goTool, err := exec.LookPath("go")
	if err != nil {
		return err
	}
	if msg, err := exec.Command(goTool, "build", "-buildvcs=false", "-o", out, ".").CombinedOutput(); err != nil {
		return fmt.Errorf("go build: %v\n%s", err, msg)
	}
	return nil
}

// result is what one run of the binary printed, and its exit status.
type result struct {
	stdout, stderr string
	code           int
}

// relock runs the binary with args and stdin, and with --addr of srv
// after the command, args[0], and returns its output.
func relock(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	return runCmd(t, relockCmd(t, append([]string{args[0], "--addr", srv.Addr}, args[1:]...)...), stdin)
}

// runCmd runs cmd with stdin and returns its output.
func runCmd(t *testing.T, cmd *exec.Cmd, stdin string) result {
	t.Helper()
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("%s: %v", cmd, err)
	}
	return result{stdout.String(), stderr.String(), cmd.ProcessState.ExitCode()}
}

// relockCmd returns the binary's command with args, killed when the test
// ends, in an environment without REDIS_ variables.
func relockCmd(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.CommandContext(testkit.Ctx(t, 10*time.Second), bin, args...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "REDIS_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	return cmd
}

// want fails t unless r has exit status code and its stdout and stderr
// contain the texts given.
func (r result) want(t *testing.T, code int, stdout, stderr []string) {
	t.Helper()
	if r.code != code {
		t.Errorf("exit status %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, code, r.stdout, r.stderr)
	}
	for _, s := range stdout {
		if !strings.Contains(r.stdout, s) {
			t.Errorf("stdout lacks %q:\n%s", s, r.stdout)
		}
	}
	for _, s := range stderr {
		if !strings.Contains(r.stderr, s) {
			t.Errorf("stderr lacks %q:\n%s", s, r.stderr)
		}
	}
}

// server is the test's view of srv: a go-redis client of it, and rlock
// Clients on that, all closed when the test ends.
type server struct {
	t   *testing.T
	rdb redis.UniversalClient
}

// fresh empties the server and returns the test's view of it.
func fresh(t *testing.T) server {
	t.Helper()
	srv.Reset(t)
	return server{t, srv.Client(t)}
}

// client returns a new rlock Client with opts.
func (s server) client(opts ...rlock.Option) *rlock.Client {
	s.t.Helper()
	return lockkit.NewClient(s.t, s.rdb, opts...)
}

// locker is what the tests need of a lock handle.
type locker interface {
	Lock(ctx context.Context) error
	Unlock(ctx context.Context) error
	Owner() string
}

// lock takes m, and releases it (if still held) when the test ends.
func lock(t *testing.T, m locker) {
	t.Helper()
	if err := m.Lock(testkit.Ctx(t, 5*time.Second)); err != nil {
		t.Fatalf("Lock %s: %v", m.Owner(), err)
	}
	t.Cleanup(func() { _ = m.Unlock(context.Background()) })
}

// acquisition is a Lock call running in its own goroutine.
type acquisition struct {
	done chan struct{} // closed when Lock has returned
	err  error
}

// startAcquisition calls m.Lock in a goroutine. When the test ends, a
// Lock still waiting is cancelled, and a lock taken is released.
func startAcquisition(t *testing.T, m locker) *acquisition {
	ctx, cancel := context.WithCancel(context.Background())
	a := &acquisition{done: make(chan struct{})}
	go func() {
		defer close(a.done)
		a.err = m.Lock(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		<-a.done
		_ = m.Unlock(context.Background())
	})
	return a
}

// wait fails t unless the Lock call succeeds within a few seconds.
func (a *acquisition) wait(t *testing.T) {
	t.Helper()
	select {
	case <-a.done:
		if a.err != nil {
			t.Fatalf("Lock: %v", a.err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Lock still waiting after 5s")
	}
}

// contendedFair makes the fair lock name held by one owner, with two
// waiters queued behind it in order, each of its own Client, and returns
// the holder and the waiters' handles and Lock calls.
func contendedFair(t *testing.T, s server, name string) (*rlock.FairMutex, []*rlock.FairMutex, []*acquisition) {
	t.Helper()
	holder := s.client().NewFairMutex(name)
	lock(t, holder)
	var waiters []*rlock.FairMutex
	var calls []*acquisition
	for i := range 2 {
		w := s.client().NewFairMutex(name)
		waiters = append(waiters, w)
		calls = append(calls, startAcquisition(t, w))
		testkit.Eventually(t, 5*time.Second, fmt.Sprintf("%d waiters queued", i+1), func() bool {
			n, err := s.rdb.LLen(context.Background(), keys.Queue(name)).Result()
			return err == nil && n == int64(i+1)
		})
	}
	return holder, waiters, calls
}

// lines sends the lines r reads to the channel it returns, which it
// closes at the end of r.
func lines(r io.Reader) <-chan string {
	ch := make(chan string, 100)
	go func() {
		defer close(ch)
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			ch <- sc.Text()
		}
	}()
	return ch
}

// nextLine returns the next line from ch that contains substr, after
// adding every line it reads to out; it fails t after a few seconds.
func nextLine(t *testing.T, ch <-chan string, substr string, out *strings.Builder) string {
	t.Helper()
	timeout := time.After(5 * time.Second)
	for {
		select {
		case line, ok := <-ch:
			if !ok {
				t.Fatalf("output ended before a line with %q:\n%s", substr, out)
			}
			out.WriteString(line + "\n")
			if strings.Contains(line, substr) {
				return line
			}
		case <-timeout:
			t.Fatalf("no line with %q within 5s:\n%s", substr, out)
		}
	}
}

// start starts cmd, which is killed and waited for when the test ends if
// it has not been, and returns the lines of its stdout: read them all
// before cmd.Wait.
func start(t *testing.T, cmd *exec.Cmd) <-chan string {
	t.Helper()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
		if stderr.Len() > 0 {
			t.Logf("%s: stderr:\n%s", cmd, stderr.String())
		}
	})
	return lines(stdout)
}

// drain adds the lines left in ch to out, until ch is closed.
func drain(ch <-chan string, out *strings.Builder) {
	for line := range ch {
		out.WriteString(line + "\n")
	}
}

// sharedCluster returns the cluster TestMain started, empty, once it is
// ready.
func sharedCluster(t *testing.T) *redistest.Cluster {
	t.Helper()
	if <-clusterReady; clusterErr != nil {
		t.Fatal(clusterErr)
	}
	cluster.FlushAll(t)
	return cluster
}
