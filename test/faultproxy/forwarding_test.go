package faultproxy_test

import (
	"bufio"
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

func TestPassThrough(t *testing.T) {
	p := checkedProxy(t)
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
	p := checkedProxy(t)
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
	p := checkedProxy(t)
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
