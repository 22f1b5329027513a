// Package redisserver provides the Redis server the benchmarks run against:
// the one named by REDIS_ADDR, or a redis-server child process started on a
// free loopback port with persistence off.
package redisserver

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// Server is a Redis server for one benchmark run.
type Server struct {
	// Addr is the server's host:port.
	Addr string

	cmd  *exec.Cmd // nil for a server named by REDIS_ADDR
	dir  string
	exit chan error
}

// Open returns the server named by the REDIS_ADDR environment variable when
// it is set, and otherwise starts a redis-server on a free 127.0.0.1 port.
func Open() (*Server, error) {
	if addr := os.Getenv("REDIS_ADDR"); addr != "" {
		return &Server{Addr: addr}, nil
	}
	return Start()
}

// Start launches redis-server (from PATH) on a free loopback port with
// --save "" and --appendonly no, and returns once it answers PING.
func Start() (*Server, error) {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		return nil, errors.New("redis-server not found: install it (Debian: apt-get install -y redis-server) or set REDIS_ADDR")
	}
	dir, err := os.MkdirTemp("", "relock-bench-redis-")
	if err != nil {
		return nil, err
	}
	// The probed port can be taken before redis-server binds it: retry.
	var lastErr error
	for range 5 {
		var port int
		if port, lastErr = freePort(); lastErr != nil {
			continue
		}
		s, err := launch(bin, dir, port)
		if err == nil {
			return s, nil
		}
		lastErr = err
	}
	_ = os.RemoveAll(dir)
	return nil, fmt.Errorf("start redis-server: %w", lastErr)
}

func launch(bin, dir string, port int) (*Server, error) {
	cmd := exec.Command(bin,
		"--port", strconv.Itoa(port),
		"--bind", "127.0.0.1",
		"--save", "",
		"--appendonly", "no",
		"--dir", dir,
		"--daemonize", "no",
		"--loglevel", "warning",
		"--logfile", filepath.Join(dir, "redis.log"),
	)
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &Server{Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), cmd: cmd, dir: dir, exit: make(chan error, 1)}
	go func() { s.exit <- cmd.Wait() }()

	rdb := redis.NewClient(&redis.Options{Addr: s.Addr, MaxRetries: -1, DialTimeout: 200 * time.Millisecond})
	defer rdb.Close()
	deadline := time.Now().Add(10 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		err := rdb.Ping(ctx).Err()
		cancel()
		if err == nil {
			return s, nil
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
			return nil, fmt.Errorf("redis-server on %s did not answer PING: %w", s.Addr, err)
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

// Started reports whether the server is a child process of this one (and
// so may be flushed freely) rather than one named by REDIS_ADDR.
func (s *Server) Started() bool { return s.cmd != nil }

// Close stops a started server and removes its working directory; for a
// server named by REDIS_ADDR it does nothing.
func (s *Server) Close() error {
	if s.cmd == nil {
		return nil
	}
	_ = s.cmd.Process.Signal(os.Interrupt)
	select {
	case <-s.exit:
	case <-time.After(5 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.exit
	}
	return os.RemoveAll(s.dir)
}
