package testkit

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Monitor streams the commands a Redis server runs (MONITOR), scripts'
// commands included, over a connection of its own: a test's independent
// view of what clients and scripts did.
type Monitor struct {
	conn  net.Conn
	lines chan []string
	done  chan struct{} // closed by stop
}

// StartMonitor starts MONITOR on the server at addr. Its connection is
// closed at Stop, or when the test ends.
func StartMonitor(t testing.TB, addr string) *Monitor {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(conn)
	if _, err := conn.Write([]byte("MONITOR\r\n")); err != nil {
		t.Fatal(err)
	}
	if line, err := r.ReadString('\n'); err != nil || !strings.HasPrefix(line, "+OK") {
		t.Fatalf("MONITOR: %q %v", line, err)
	}
	m := &Monitor{conn: conn, lines: make(chan []string, 1024), done: make(chan struct{})}
	go func() {
		defer close(m.lines)
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			select {
			case m.lines <- parseMonitorLine(line):
			case <-m.done:
				return
			}
		}
	}()
	t.Cleanup(func() { _ = conn.Close() })
	return m
}

// Commands streams the commands the server runs from StartMonitor on, in
// order, each as its words: "lua" first for a script's command, "client"
// for a client's. A reader of it must keep reading until Stop or the
// test's end: the stream waits for it.
func (m *Monitor) Commands() <-chan []string { return m.lines }

// Stop returns every command the server ran since StartMonitor that
// Commands did not deliver, in order, as Commands gives them, and closes
// the connection. It sends a marker through rdb and reads up to it, so
// nothing run before Stop is missed.
func (m *Monitor) Stop(t testing.TB, rdb redis.UniversalClient) [][]string {
	t.Helper()
	defer func() {
		close(m.done)
		_ = m.conn.Close()
	}()
	marker := fmt.Sprintf("monitor-end-%d", time.Now().UnixNano())
	if err := rdb.Echo(context.Background(), marker).Err(); err != nil {
		t.Fatal(err)
	}
	timeout := time.After(10 * time.Second)
	var all [][]string
	for {
		select {
		case l, ok := <-m.lines:
			if !ok {
				t.Fatal("MONITOR connection closed early")
			}
			if len(l) == 3 && l[1] == "echo" && l[2] == marker {
				return all
			}
			if l != nil {
				all = append(all, l)
			}
		case <-timeout:
			t.Fatal("MONITOR: marker not seen")
		}
	}
}

// parseMonitorLine turns `+1700000000.123456 [0 lua] "hset" "k" "f" "1"`
// into ["lua", "hset", "k", "f", "1"] (["client", ...] for a client's).
func parseMonitorLine(line string) []string {
	line = strings.TrimRight(strings.TrimPrefix(line, "+"), "\r\n")
	open, close := strings.IndexByte(line, '['), strings.IndexByte(line, ']')
	if open < 0 || close < open {
		return nil
	}
	src := "client"
	if strings.Contains(line[open:close], "lua") {
		src = "lua"
	}
	words := []string{src}
	rest := line[close+1:]
	for {
		i := strings.IndexByte(rest, '"')
		if i < 0 {
			return words
		}
		rest = rest[i:]
		// Arguments are quoted with Go-compatible escapes.
		end := 1
		for end < len(rest) && rest[end] != '"' {
			if rest[end] == '\\' {
				end++
			}
			end++
		}
		if end >= len(rest) {
			return words
		}
		w, err := strconv.Unquote(rest[:end+1])
		if err != nil {
			w = rest[1:end]
		}
		if len(words) == 1 {
			w = strings.ToLower(w) // the command name
		}
		words = append(words, w)
		rest = rest[end+1:]
	}
}
