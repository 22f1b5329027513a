package faultproxy_test

import (
	"bufio"
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/relock-go/relock/test/faultproxy"
)

func TestCloseEndsEveryGoroutine(t *testing.T) {
	srv.Reset(t)
	ctx := context.Background()
	if err := srv.Client(t).Set(ctx, "big", strings.Repeat("x", 1<<20), 0).Err(); err != nil {
		t.Fatal(err)
	}
	p, err := faultproxy.Start(srv.Addr)
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
