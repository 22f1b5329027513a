package redistest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// Restart kills the server with SIGKILL, as a crash would, and starts it
// again on the same port with the same options; it returns once the new
// process answers PING (while it answers LOADING, reading its AOF, it is
// waited for, up to minutes). Unless started with an AOF, the server comes
// back empty: every key, script and subscription is gone; and every client
// connection was cut. Restart must not run concurrently with Close or
// another Restart.
func (s *Server) Restart() error { return s.restart() }

// restart is Restart with extra arguments after the server's own (a later
// one overrides an earlier); they stay for later restarts.
func (s *Server) restart(extra ...string) error {
	_ = s.cmd.Process.Kill()
	<-s.exit

	// The kernel may take a moment to release the port; the old process
	// is gone, so retrying the bind is safe.
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := s.respawn(extra)
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("restart redis-server on %s: %w", s.Addr, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// respawn starts the server's command line anew, extra appended, and waits
// until it answers PING (awaitPong), or reports why it exited.
func (s *Server) respawn(extra []string) error {
	cmd := exec.Command(s.cmd.Path, append(s.cmd.Args[1:len(s.cmd.Args):len(s.cmd.Args)], extra...)...)
	if err := cmd.Start(); err != nil {
		return err
	}
	exit := make(chan error, 1)
	go func() { exit <- cmd.Wait() }()
	s.cmd, s.exit = cmd, exit

	rdb := redis.NewClient(adminOptions(s.Addr))
	defer rdb.Close()
	err := awaitPong(rdb, exit, startLimits)
	var exited *exitError
	switch {
	case errors.As(err, &exited):
		// Put the exit status back so that Close does not wait for it.
		exit <- exited.err
		log, _ := os.ReadFile(filepath.Join(s.dir, "redis.log"))
		lines := strings.Split(strings.TrimSpace(string(log)), "\n")
		return fmt.Errorf("redis-server exited (%v): %s", exited.err, lines[len(lines)-1])
	case err != nil:
		_ = cmd.Process.Kill()
		return fmt.Errorf("redis-server on %s: %w", s.Addr, err)
	}
	return nil
}

// limits bound the wait for a server that was just started: Silent is how
// long it may answer nothing at all; Loading how long it may answer
// LOADING, which it does while it reads its dataset from disk (seconds
// for a large AOF on a loaded host): it is alive and making progress.
type limits struct{ Silent, Loading time.Duration }

// startLimits are Restart's.
var startLimits = limits{Silent: 10 * time.Second, Loading: 5 * time.Minute}

// exitError is awaitPong's report that the process exited first.
type exitError struct{ err error }

func (e *exitError) Error() string { return fmt.Sprintf("exited: %v", e.err) }

// awaitPong polls rdb's server with PING until it answers PONG. It fails
// with an *exitError when exit reports the process's end first, with the
// last error when the server stayed silent for lim.Silent, and with its
// last LOADING answer when it answered LOADING for longer than
// lim.Loading.
func awaitPong(rdb *redis.Client, exit <-chan error, lim limits) error {
	start := time.Now()
	heard := start    // when the server last answered LOADING
	var loading error // its last LOADING answer
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		err := rdb.Ping(ctx).Err()
		cancel()
		if err == nil {
			return nil
		}
		now := time.Now()
		if redis.IsLoadingError(err) {
			heard, loading = now, err
		}
		if now.Sub(heard) > lim.Silent {
			return fmt.Errorf("no PONG after %v: %w", now.Sub(start).Round(time.Millisecond), err)
		}
		if now.Sub(start) > lim.Loading && loading != nil {
			return fmt.Errorf("no PONG after %v: %w", now.Sub(start).Round(time.Millisecond), loading)
		}
		select {
		case werr := <-exit:
			return &exitError{werr}
		case <-time.After(pollInterval):
		}
	}
}
