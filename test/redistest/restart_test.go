package redistest

import (
	"bufio"
	"errors"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// A server that answers LOADING while it reads its AOF is alive: it is
// waited for past the limit for one that answers nothing, until it answers
// PONG; one that answers nothing fails after that limit.
func TestAwaitPongWaitsOutLoading(t *testing.T) {
	// Silent is far above a loaded host's delay of a loopback answer.
	lim := limits{Silent: time.Second, Loading: time.Minute}
	loading := fakeServer(t, 600*time.Millisecond)
	rdb := redis.NewClient(adminOptions(loading))
	defer rdb.Close()
	start := time.Now()
	if err := awaitPong(rdb, make(chan error), lim); err != nil {
		t.Fatalf("awaitPong of a server loading for 600ms, silent limit %v: %v", lim.Silent, err)
	}
	if d := time.Since(start); d < 600*time.Millisecond {
		t.Errorf("awaitPong returned after %v, before the server answered PONG", d)
	}

	lim.Loading = 200 * time.Millisecond
	if err := awaitPong(redis.NewClient(adminOptions(fakeServer(t, time.Hour))), make(chan error), lim); err == nil || !redis.IsLoadingError(errors.Unwrap(err)) {
		t.Errorf("awaitPong of a server loading past the loading limit = %v, want its LOADING error", err)
	}

	silent, err := net.Listen("tcp", "127.0.0.1:0") // accepts, never answers
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	rdb = redis.NewClient(adminOptions(silent.Addr().String()))
	defer rdb.Close()
	if err := awaitPong(rdb, make(chan error), lim); err == nil {
		t.Error("awaitPong of a silent server succeeded")
	}
}

// A process that exits while awaited is reported as such.
func TestAwaitPongReportsAnExit(t *testing.T) {
	exit := make(chan error, 1)
	exit <- errors.New("signal: killed")
	rdb := redis.NewClient(adminOptions(fakeServer(t, time.Hour)))
	defer rdb.Close()
	var exited *exitError
	if err := awaitPong(rdb, exit, startLimits); !errors.As(err, &exited) {
		t.Errorf("awaitPong of an exited process = %v, want an *exitError", err)
	}
}

// fakeServer serves RESP on a loopback port: LOADING to PING for the
// first loadFor, PONG after; an error to HELLO (the client falls back to
// RESP2) and OK to anything else. It returns the address.
func fakeServer(t *testing.T, loadFor time.Duration) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Close() })
	ready := time.Now().Add(loadFor)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go serveFake(c, ready)
		}
	}()
	return l.Addr().String()
}

func serveFake(c net.Conn, ready time.Time) {
	defer c.Close()
	r := bufio.NewReader(c)
	for {
		args, err := readCommand(r)
		if err != nil {
			return
		}
		reply := "+OK\r\n"
		switch strings.ToUpper(args[0]) {
		case "HELLO":
			reply = "-ERR unknown command 'HELLO'\r\n"
		case "PING":
			reply = "+PONG\r\n"
			if time.Now().Before(ready) {
				reply = "-LOADING Redis is loading the dataset in memory\r\n"
			}
		}
		if _, err := c.Write([]byte(reply)); err != nil {
			return
		}
	}
}

// readCommand reads one RESP array of bulk strings.
func readCommand(r *bufio.Reader) ([]string, error) {
	line, err := r.ReadString('\n')
	if err != nil {
		return nil, err
	}
	n, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(line, "*")))
	if err != nil || n < 1 {
		return nil, errors.New("not a command")
	}
	args := make([]string, n)
	for i := range args {
		if _, err := r.ReadString('\n'); err != nil { // $len
			return nil, err
		}
		arg, err := r.ReadString('\n')
		if err != nil {
			return nil, err
		}
		args[i] = strings.TrimSuffix(arg, "\r\n")
	}
	return args, nil
}
