package redistest

import (
	"context"
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
// process answers PING. Persistence is off, so the server comes back empty:
// every key, script and subscription is gone, and every client connection
// was cut. Restart must not run concurrently with Close or another Restart.
func (s *Server) Restart() error {
	_ = s.cmd.Process.Kill()
	<-s.exit

	// The kernel may take a moment to release the port; the old process
	// is gone, so retrying the bind is safe.
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := s.respawn()
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("restart redis-server on %s: %w", s.Addr, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// respawn starts the server's command line anew and waits until it answers
// PING, or reports why it exited.
func (s *Server) respawn() error {
	cmd := exec.Command(s.cmd.Path, s.cmd.Args[1:]...)
	if err := cmd.Start(); err != nil {
		return err
	}
	exit := make(chan error, 1)
	go func() { exit <- cmd.Wait() }()
	s.cmd, s.exit = cmd, exit

	rdb := redis.NewClient(adminOptions(s.Addr))
	defer rdb.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for {
		pctx, pcancel := context.WithTimeout(ctx, 200*time.Millisecond)
		err := rdb.Ping(pctx).Err()
		pcancel()
		if err == nil {
			return nil
		}
		select {
		case werr := <-exit:
			// Put an exited status back so that Close does not wait for it.
			exit <- werr
			log, _ := os.ReadFile(filepath.Join(s.dir, "redis.log"))
			lines := strings.Split(strings.TrimSpace(string(log)), "\n")
			return fmt.Errorf("redis-server exited (%v): %s", werr, lines[len(lines)-1])
		case <-ctx.Done():
			_ = cmd.Process.Kill()
			return fmt.Errorf("redis-server on %s did not answer PING: %w", s.Addr, err)
		case <-time.After(pollInterval):
		}
	}
}
