package faultproxy_test

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/test/faultproxy"
	"github.com/relock-go/relock/test/testenv"
	"github.com/relock-go/relock/test/testkit"
)

// replyTimeout bounds the commands that are expected to get no reply: short,
// so that they fail quickly (see timeoutCtx).
const replyTimeout = 200 * time.Millisecond

// within bounds every wait for an event: generous, so a loaded machine
// never fails a test that is merely slow.
const within = 5 * time.Second

// checkedProxy starts a proxy to the test server on a flushed database; when
// the test ends it closes the proxy and checks that none of its goroutines
// is left.
func checkedProxy(t *testing.T) *faultproxy.Proxy {
	t.Helper()
	srv.Reset(t)
	p, err := faultproxy.Start(srv.Addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := p.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		checkNoProxyGoroutines(t)
	})
	return p
}

// client returns a go-redis client of addr with one pooled connection and
// no retries, so each fault shows as it is. Its read timeout is long, so
// that a slow machine never fails a command that should succeed; a
// command's context deadline, when earlier, becomes its read deadline.
func client(t *testing.T, addr string) *redis.Client {
	t.Helper()
	rdb := redis.NewClient(&redis.Options{
		Addr:                  addr,
		PoolSize:              1,
		MaxRetries:            -1,
		ReadTimeout:           within,
		ContextTimeoutEnabled: true,
	})
	t.Cleanup(func() { _ = rdb.Close() })
	return rdb
}

// timeoutCtx returns a context for a command expected to get no reply: its
// read then fails with a timeout after replyTimeout, as it would with a
// client whose ReadTimeout is replyTimeout.
func timeoutCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), replyTimeout)
	t.Cleanup(cancel)
	return ctx
}

// clientID runs CLIENT ID, which names the server-side connection a
// command went over.
func clientID(t *testing.T, rdb *redis.Client) int64 {
	t.Helper()
	id, err := rdb.ClientID(context.Background()).Result()
	if err != nil {
		t.Fatalf("CLIENT ID: %v", err)
	}
	return id
}

// isTimeout reports whether err is a command's read timing out.
func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// isReset reports whether err is what a client sees on a connection the
// peer aborted: a reset, or end of stream if it read the reset as one.
func isReset(err error) bool {
	return errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
}

// checkNoProxyGoroutines fails the test if a goroutine of the proxy (not of
// its tests) is left after Close. Close returns once each has signalled its
// exit, so none may still be blocked; one may still be returning, so the
// check gives those a moment to finish.
func checkNoProxyGoroutines(t *testing.T) {
	t.Helper()
	if blocked := proxyStacks(testenv.Blocked()); len(blocked) > 0 {
		t.Fatalf("proxy goroutine still blocked after Close:\n%s", blocked[0])
	}
	testkit.Eventually(t, within, "no proxy goroutine left after Close", func() bool {
		return len(proxyStacks(testenv.Goroutines())) == 0
	})
}

// proxyStacks keeps the stacks that run code of the proxy itself.
func proxyStacks(stacks []string) []string {
	var ours []string
	for _, g := range stacks {
		for _, line := range strings.Split(g, "\n") {
			if strings.Contains(line, "/test/faultproxy/") && !strings.Contains(line, "_test.go:") {
				ours = append(ours, g)
				break
			}
		}
	}
	return ours
}

// rawConn dials addr; its reads fail after the test's wait bound.
func rawConn(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	_ = c.SetReadDeadline(time.Now().Add(within))
	return c
}

// send writes s to c.
func send(t *testing.T, c net.Conn, s string) {
	t.Helper()
	if _, err := io.WriteString(c, s); err != nil {
		t.Fatal(err)
	}
}
