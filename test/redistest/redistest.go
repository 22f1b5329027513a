// Package redistest starts a real redis-server for integration tests.
//
// Each test package that needs a real server starts one in TestMain with
// Main, on a free loopback port, with persistence off and a throw-away
// working directory, and stops it when the package's tests end. A missing
// redis-server binary fails the package with a one-line instruction rather
// than skipping it: integration tests must run wherever the suite runs.
//
// The binary is redis-server from the PATH, or the one that the
// environment variable RELOCK_REDIS_SERVER names (ServerEnv): another
// Redis release, or Valkey, which takes the same command line. Single
// servers, Cluster nodes and Sentinels all run it, and Main says on
// stderr which server the package's tests ran on.
//
// Like every package under test/, it exists for relock's own tests and
// makes no compatibility promise: its API changes as the tests need.
package redistest

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Server is a redis-server child process listening on 127.0.0.1.
type Server struct {
	// Addr is the host:port the server listens on.
	Addr string

	cmd  *exec.Cmd
	dir  string
	exit chan error
	// version is the server's name and version, as INFO server gives them
	// when it first answers.
	version string
}

// ServerEnv is the environment variable that names the server binary the
// tests run, instead of redis-server from the PATH.
const ServerEnv = "RELOCK_REDIS_SERVER"

// Binary returns the path of the server binary the tests run: that
// ServerEnv names, else redis-server from the PATH.
func Binary() (string, error) {
	if bin := os.Getenv(ServerEnv); bin != "" {
		path, err := exec.LookPath(bin)
		if err != nil {
			return "", fmt.Errorf("%s=%s: %w", ServerEnv, bin, err)
		}
		return path, nil
	}
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		return "", errors.New("redis-server not found: install it (Debian: apt-get install -y redis-server) or run `make test`, which does")
	}
	return bin, nil
}

// before7 reports whether the server binary is a Redis release before 7.0
// (from its --version: "Redis server v=6.2.16 ..."), which lacks options
// that the Cluster and replication set up here use on later ones
// (--cluster-port, --shutdown-on-sigint). Valkey counts as Redis 7.2.
func before7() bool {
	bin, err := Binary()
	if err != nil {
		return false
	}
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		return false
	}
	_, v, ok := strings.Cut(string(out), " v=")
	major, _, _ := strings.Cut(v, ".")
	n, err := strconv.Atoi(major)
	return ok && err == nil && strings.HasPrefix(string(out), "Redis ") && n < 7
}

// Version is the server's name and version, "redis 7.0.15" or "valkey
// 8.0.1", from INFO server.
func (s *Server) Version() string { return s.version }

// serverVersion reads the name and version from an INFO server reply:
// Valkey gives server_name and valkey_version (and a redis_version for
// clients that check it), Redis only redis_version.
func serverVersion(info string) string {
	fields := map[string]string{}
	for _, line := range strings.Split(info, "\n") {
		if k, v, ok := strings.Cut(strings.TrimSpace(line), ":"); ok {
			fields[k] = v
		}
	}
	if v := fields["valkey_version"]; v != "" {
		return "valkey " + v
	}
	return "redis " + fields["redis_version"]
}

// Start launches redis-server on a free loopback port and returns once the
// server answers PING. Extra arguments are appended to the command line
// (for example "--maxmemory", "10mb").
func Start(extra ...string) (*Server, error) {
	return start("", extra)
}

// start is Start with an optional configuration file: a non-empty conf is
// written to the server's working directory and named as redis-server's
// first argument, the only place it accepts one (a Sentinel needs one it
// can rewrite).
func start(conf string, extra []string) (*Server, error) {
	return startOn(conf, extra, freePort)
}

// startOn is start on a port that pick chooses.
func startOn(conf string, extra []string, pick func() (int, error)) (*Server, error) {
	bin, err := Binary()
	if err != nil {
		return nil, err
	}
	if before7() {
		extra = legacyArgs(extra)
	}
	dir, err := os.MkdirTemp("", "relock-redis-")
	if err != nil {
		return nil, err
	}
	var confPath string
	if conf != "" {
		confPath = filepath.Join(dir, "redis.conf")
		if err := os.WriteFile(confPath, []byte(conf), 0o600); err != nil {
			_ = os.RemoveAll(dir)
			return nil, err
		}
	}
	// A port can be taken between probing and binding; try a few.
	var lastErr error
	for range 5 {
		port, err := pick()
		if err != nil {
			lastErr = err
			continue
		}
		s, err := launch(bin, confPath, dir, port, extra)
		if err == nil {
			return s, nil
		}
		lastErr = err
	}
	_ = os.RemoveAll(dir)
	return nil, fmt.Errorf("start redis-server: %w", lastErr)
}

func launch(bin, conf, dir string, port int, extra []string) (*Server, error) {
	var args []string
	if conf != "" {
		args = append(args, conf)
	}
	args = append(args,
		"--port", strconv.Itoa(port),
		"--bind", "127.0.0.1",
		"--save", "",
		"--appendonly", "no",
		"--dir", dir,
		"--daemonize", "no",
		"--loglevel", "warning",
		"--logfile", filepath.Join(dir, "redis.log"),
	)
	cmd := exec.Command(bin, append(args, extra...)...)
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &Server{Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), cmd: cmd, dir: dir, exit: make(chan error, 1)}
	go func() { s.exit <- cmd.Wait() }()

	rdb := redis.NewClient(adminOptions(s.Addr))
	defer rdb.Close()
	deadline := time.Now().Add(10 * time.Second)
	// The server that answers must be this one: another test's server may
	// have taken the port first, and this one then fails to bind it.
	ours := fmt.Sprintf("process_id:%d\r\n", cmd.Process.Pid)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		info, err := rdb.Info(ctx, "server").Result()
		cancel()
		if err == nil {
			if strings.Contains(info, ours) {
				s.version = serverVersion(info)
				return s, nil
			}
			err = fmt.Errorf("another server answers on %s", s.Addr)
		}
		select {
		case werr := <-s.exit:
			log, _ := os.ReadFile(filepath.Join(dir, "redis.log"))
			return nil, fmt.Errorf("redis-server exited (%v): %s", werr, strings.TrimSpace(string(log)))
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			<-s.exit
			return nil, fmt.Errorf("redis-server on %s did not answer: %w", s.Addr, err)
		}
	}
}

// adminOptions are the options of the short-lived clients that start,
// probe and configure servers: no retries and short timeouts, so that a
// dead or busy server costs one poll rather than the caller's deadline.
func adminOptions(addr string) *redis.Options {
	return &redis.Options{
		Addr:         addr,
		MaxRetries:   -1,
		DialTimeout:  200 * time.Millisecond,
		ReadTimeout:  time.Second,
		WriteTimeout: time.Second,
	}
}

// pollInterval is how often waitUntil retests its condition.
const pollInterval = 20 * time.Millisecond

// waitUntil tests cond every pollInterval until it returns nil or ctx is
// done; then it reports what was awaited and cond's last error.
func waitUntil(ctx context.Context, what string, cond func(context.Context) error) error {
	for {
		err := cond(ctx)
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s: %w (last: %v)", what, ctx.Err(), err)
		case <-time.After(pollInterval):
		}
	}
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// Close stops the server and removes its working directory.
func (s *Server) Close() error {
	_ = s.cmd.Process.Signal(os.Interrupt)
	select {
	case <-s.exit:
	case <-time.After(5 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.exit
	}
	return os.RemoveAll(s.dir)
}

// Main starts a server, stores it in *srv, runs the package's tests and
// stops the server. Use it as the body of TestMain:
//
//	func TestMain(m *testing.M) { os.Exit(redistest.Main(m, &srv)) }
func Main(m *testing.M, srv **Server) int {
	s, err := Start()
	if err != nil {
		fmt.Fprintln(os.Stderr, "redistest:", err)
		return 1
	}
	*srv = s
	fmt.Fprintf(os.Stderr, "redistest: the tests run on %s (%s)\n", s.Version(), s.cmd.Path)
	code := m.Run()
	if err := s.Close(); err != nil && code == 0 {
		fmt.Fprintln(os.Stderr, "redistest: stop:", err)
		code = 1
	}
	return code
}

// Client returns a new go-redis client of the server, closed when the test
// ends. It flushes nothing: a test may take several clients of one server,
// each seeing what the others wrote; Reset empties the server.
func (s *Server) Client(tb testing.TB) *redis.Client {
	tb.Helper()
	rdb := redis.NewClient(&redis.Options{Addr: s.Addr})
	tb.Cleanup(func() { _ = rdb.Close() })
	return rdb
}

// Reset flushes every database and resets INFO commandstats, so that each
// test starts from an empty server with no command counted. It keeps the
// script cache: a test that needs scripts unloaded runs SCRIPT FLUSH.
func (s *Server) Reset(tb testing.TB) {
	tb.Helper()
	rdb := redis.NewClient(&redis.Options{Addr: s.Addr})
	defer rdb.Close()
	ctx := context.Background()
	for _, err := range []error{
		rdb.FlushAll(ctx).Err(),
		rdb.ConfigResetStat(ctx).Err(),
	} {
		if err != nil {
			tb.Fatalf("reset redis: %v", err)
		}
	}
}

// CommandCalls reports how many times the server has run each command since
// the last stats reset, from INFO commandstats. Keys are lower-case command
// names ("evalsha", "publish", ...); commands run inside scripts count too.
func CommandCalls(ctx context.Context, rdb redis.UniversalClient) (map[string]int64, error) {
	info, err := rdb.Info(ctx, "commandstats").Result()
	if err != nil {
		return nil, err
	}
	calls := make(map[string]int64)
	sc := bufio.NewScanner(strings.NewReader(info))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		name, rest, ok := strings.Cut(line, ":")
		if !ok || !strings.HasPrefix(name, "cmdstat_") {
			continue
		}
		for _, field := range strings.Split(rest, ",") {
			if v, ok := strings.CutPrefix(field, "calls="); ok {
				n, err := strconv.ParseInt(v, 10, 64)
				if err != nil {
					return nil, fmt.Errorf("commandstats %q: %w", line, err)
				}
				calls[strings.TrimPrefix(name, "cmdstat_")] = n
			}
		}
	}
	return calls, nil
}
