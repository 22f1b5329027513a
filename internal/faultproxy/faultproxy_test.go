package faultproxy

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/internal/leakcheck"
	"github.com/relock-go/relock/internal/redistest"
	"github.com/relock-go/relock/internal/testenv"
)

var srv *redistest.Server

// TestMain runs the tests on a real redis-server and fails the package if a
// goroutine of the module outlives them.
func TestMain(m *testing.M) {
	os.Exit(testenv.Main(func() int { return redistest.Main(m, &srv) }))
}

// replyTimeout bounds the commands that are expected to get no reply: short,
// so that they fail quickly (see timeoutCtx).
const replyTimeout = 200 * time.Millisecond

// within bounds every wait for an event: generous, so a loaded machine
// never fails a test that is merely slow.
const within = 5 * time.Second

// startProxy starts a proxy to the test server on a flushed database; when
// the test ends it closes the proxy and checks that none of its goroutines
// is left.
func startProxy(t *testing.T) *Proxy {
	t.Helper()
	srv.Reset(t)
	p, err := Start(srv.Addr)
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
	if blocked := proxyStacks(leakcheck.Blocked()); len(blocked) > 0 {
		t.Fatalf("proxy goroutine still blocked after Close:\n%s", blocked[0])
	}
	redistest.Eventually(t, within, "no proxy goroutine left after Close", func() bool {
		return len(proxyStacks(leakcheck.Goroutines())) == 0
	})
}

// proxyStacks keeps the stacks that run code of the proxy itself.
func proxyStacks(stacks []string) []string {
	var ours []string
	for _, g := range stacks {
		for _, line := range strings.Split(g, "\n") {
			if strings.Contains(line, "/internal/faultproxy/") && !strings.Contains(line, "_test.go:") {
				ours = append(ours, g)
				break
			}
		}
	}
	return ours
}

func TestPassThrough(t *testing.T) {
	p := startProxy(t)
	rdb := client(t, p.Addr())
	ctx := context.Background()

	// A value far larger than one chunk crosses in many reads both ways.
	big := strings.Repeat("relock", 200_000)
	if err := rdb.Set(ctx, "k", big, 0).Err(); err != nil {
		t.Fatalf("SET: %v", err)
	}
	if got, err := rdb.Get(ctx, "k").Result(); err != nil || got != big {
		t.Fatalf("GET: %d bytes, %v; want %d bytes", len(got), err, len(big))
	}
	cmds, err := rdb.Pipelined(ctx, func(pipe redis.Pipeliner) error {
		for range 100 {
			pipe.Incr(ctx, "n")
		}
		return nil
	})
	if err != nil {
		t.Fatalf("pipeline: %v", err)
	}
	for i, c := range cmds {
		if got := c.(*redis.IntCmd).Val(); got != int64(i+1) {
			t.Fatalf("INCR %d returned %d", i+1, got)
		}
	}
	if n := p.Conns(); n != 1 {
		t.Fatalf("Conns() = %d, want 1", n)
	}
}

func TestLatencyDelaysEachDirection(t *testing.T) {
	p := startProxy(t)
	rdb := client(t, p.Addr())
	ctx := context.Background()
	if err := rdb.Ping(ctx).Err(); err != nil {
		t.Fatal(err)
	}

	const d = 100 * time.Millisecond
	p.SetLatency(d)
	start := time.Now()
	if err := rdb.Ping(ctx).Err(); err != nil {
		t.Fatalf("PING with latency: %v", err)
	}
	if rtt := time.Since(start); rtt < 2*d {
		t.Fatalf("PING took %v, want at least %v (request and reply each delayed %v)", rtt, 2*d, d)
	}
}

func TestLatencyKeepsOrderWhenLowered(t *testing.T) {
	p := startProxy(t)
	c := rawConn(t, p.Addr())

	// Switch between 100ms and no latency before each command: a command
	// read while there is none must still wait for every command read
	// before it. A round trip to Redis between sends lets the proxy read
	// most commands on their own, so both settings get used; the order
	// must hold however the commands were split into chunks.
	pacer := srv.Client(t)
	const n = 100
	for i := range n {
		p.SetLatency(time.Duration(1-i%2) * 100 * time.Millisecond)
		send(t, c, fmt.Sprintf("RPUSH l %d\r\n", i))
		if err := pacer.Ping(context.Background()).Err(); err != nil {
			t.Fatal(err)
		}
	}
	r := bufio.NewReader(c)
	for i := range n {
		if line, err := r.ReadString('\n'); err != nil || line != fmt.Sprintf(":%d\r\n", i+1) {
			t.Fatalf("reply %d: %q, %v; want :%d", i+1, line, err, i+1)
		}
	}
	got, err := pacer.LRange(context.Background(), "l", 0, -1).Result()
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != n {
		t.Fatalf("list has %d elements, want %d", len(got), n)
	}
	for i, v := range got {
		if v != strconv.Itoa(i) {
			t.Fatalf("list %v: commands reached Redis out of order", got)
		}
	}
}

func TestBlackHole(t *testing.T) {
	p := startProxy(t)
	rdb := client(t, p.Addr())
	ctx := context.Background()
	before := clientID(t, rdb)

	p.BlackHole(true)
	if err := rdb.Set(timeoutCtx(t), "k", "v", 0).Err(); !isTimeout(err) {
		t.Fatalf("SET in black hole: %v, want a timeout", err)
	}
	fresh := client(t, p.Addr())
	if err := fresh.Ping(timeoutCtx(t)).Err(); !isTimeout(err) {
		t.Fatalf("PING on a new connection in black hole: %v, want a timeout", err)
	}
	if n, err := srv.Client(t).Exists(ctx, "k").Result(); err != nil || n != 0 {
		t.Fatalf("EXISTS k = %d, %v: the black-holed SET reached Redis", n, err)
	}

	p.BlackHole(false)
	if err := rdb.Set(ctx, "k", "v", 0).Err(); err != nil {
		t.Fatalf("SET after black hole: %v", err)
	}
	if after := clientID(t, rdb); after == before {
		t.Fatalf("CLIENT ID %d unchanged: go-redis should have replaced the timed-out connection", after)
	}
	if err := fresh.Ping(ctx).Err(); err != nil {
		t.Fatalf("PING on the other client after black hole: %v", err)
	}
}

func TestDropRepliesLosesReplyNotCommand(t *testing.T) {
	p := startProxy(t)
	rdb := client(t, p.Addr())
	ctx := context.Background()
	if err := rdb.Ping(ctx).Err(); err != nil { // handshake replies pass first
		t.Fatal(err)
	}

	p.DropReplies(1)
	if err := rdb.Set(timeoutCtx(t), "k", "v", 0).Err(); !isTimeout(err) {
		t.Fatalf("SET with its reply dropped: %v, want a timeout", err)
	}
	if got, err := srv.Client(t).Get(ctx, "k").Result(); err != nil || got != "v" {
		t.Fatalf("GET k = %q, %v: the SET whose reply was lost should have run", got, err)
	}
	if got, err := rdb.Get(ctx, "k").Result(); err != nil || got != "v" {
		t.Fatalf("GET through the proxy after one dropped reply: %q, %v", got, err)
	}
}

func TestResetAll(t *testing.T) {
	ctx := context.Background()

	t.Run("pooled client moves to a new connection", func(t *testing.T) {
		p := startProxy(t)
		rdb := client(t, p.Addr())
		before := clientID(t, rdb)
		p.ResetAll()
		if n := p.Conns(); n != 0 {
			t.Fatalf("Conns() = %d after ResetAll, want 0", n)
		}
		// go-redis replaces an idle connection it finds reset; if the reset
		// reaches the socket only after the next command was written, that
		// command fails instead, fast, and the following one reconnects.
		if err := rdb.Ping(ctx).Err(); err != nil && !isReset(err) {
			t.Fatalf("PING after ResetAll: %v, want success or a reset", err)
		}
		if after := clientID(t, rdb); after == before {
			t.Fatalf("CLIENT ID %d unchanged after ResetAll", after)
		}
	})

	t.Run("dedicated connection fails", func(t *testing.T) {
		p := startProxy(t)
		conn := client(t, p.Addr()).Conn()
		t.Cleanup(func() { _ = conn.Close() })
		if err := conn.Ping(ctx).Err(); err != nil {
			t.Fatal(err)
		}
		p.ResetAll()
		if err := conn.Ping(ctx).Err(); !isReset(err) {
			t.Fatalf("PING on a reset connection: %v, want a reset", err)
		}
	})

	t.Run("pub/sub Receive returns the error", func(t *testing.T) {
		p := startProxy(t)
		ps := client(t, p.Addr()).Subscribe(ctx, "ch")
		t.Cleanup(func() { _ = ps.Close() })
		if _, err := ps.ReceiveTimeout(ctx, within); err != nil {
			t.Fatalf("subscribe: %v", err)
		}
		got := make(chan error, 1)
		go func() {
			_, err := ps.Receive(ctx)
			got <- err
		}()
		p.ResetAll()
		select {
		case err := <-got:
			if !isReset(err) {
				t.Fatalf("Receive on a reset connection: %v, want a reset", err)
			}
		case <-time.After(within):
			t.Fatal("Receive still blocked after ResetAll")
		}
		// go-redis resubscribes on a new connection at the next Receive.
		msg, err := ps.ReceiveTimeout(ctx, within)
		if sub, ok := msg.(*redis.Subscription); err != nil || !ok || sub.Channel != "ch" {
			t.Fatalf("Receive after reset: %v, %v; want the resubscription to ch", msg, err)
		}
	})
}

func TestRefuseNew(t *testing.T) {
	p := startProxy(t)
	ctx := context.Background()
	open := client(t, p.Addr())
	if err := open.Ping(ctx).Err(); err != nil {
		t.Fatal(err)
	}

	p.RefuseNew(true)
	// A reset rather than a timeout shows the refusal was immediate.
	if err := client(t, p.Addr()).Ping(ctx).Err(); !isReset(err) {
		t.Fatalf("PING on a refused connection: %v, want a reset", err)
	}
	if err := open.Ping(ctx).Err(); err != nil {
		t.Fatalf("PING on the connection opened before RefuseNew: %v", err)
	}
	if n := p.Conns(); n != 1 {
		t.Fatalf("Conns() = %d while refusing, want the 1 opened before", n)
	}

	p.RefuseNew(false)
	if err := client(t, p.Addr()).Ping(ctx).Err(); err != nil {
		t.Fatalf("PING after RefuseNew(false): %v", err)
	}
}

func TestCloseEndsEveryGoroutine(t *testing.T) {
	srv.Reset(t)
	ctx := context.Background()
	if err := srv.Client(t).Set(ctx, "big", strings.Repeat("x", 1<<20), 0).Err(); err != nil {
		t.Fatal(err)
	}
	p, err := Start(srv.Addr)
	if err != nil {
		t.Fatal(err)
	}

	// Leave the proxy busy in the states it can block in: an idle pooled
	// connection (readers blocked in Read), a client that asks for 16 MiB
	// and reads none of it (a writer blocked in Write, a reader on a full
	// queue), a request waiting out an hour of latency, and one in the
	// black hole.
	idle := client(t, p.Addr())
	if err := idle.Ping(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	greedy := rawConn(t, p.Addr())
	send(t, greedy, strings.Repeat("GET big\r\n", 16))
	delayed := rawConn(t, p.Addr())
	holed := rawConn(t, p.Addr())
	p.SetLatency(time.Hour)
	send(t, delayed, "PING\r\n") // read by the proxy now, or dropped below
	p.BlackHole(true)
	send(t, holed, "PING\r\n")

	if err := p.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	checkNoProxyGoroutines(t)
	if err := p.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	for name, c := range map[string]net.Conn{"delayed": delayed, "black-holed": holed} {
		if line, err := bufio.NewReader(c).ReadString('\n'); !isReset(err) {
			t.Errorf("%s connection read %q, %v after Close, want end of stream", name, line, err)
		}
	}
	if c, err := net.Dial("tcp", p.Addr()); err == nil {
		c.Close()
		t.Fatal("dial succeeded after Close")
	}
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
