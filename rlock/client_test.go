package rlock

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// New sends nothing: on a Cluster whose nodes cannot be reached, it
// returns a Client at once, and the first operation that needs the
// cluster reports the failure under its own ctx.
func TestNewOnClusterDoesNoIO(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close() // nothing listens there now
	cc := redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{addr}, MaxRetries: -1, DialTimeout: 100 * time.Millisecond})
	t.Cleanup(func() { _ = cc.Close() })
	c := newClient(t, cc)
	if c.wire.Load() != nil {
		t.Fatal("New decided the pub/sub of a Cluster without asking it")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	err = c.NewMutex("n").Lock(ctx)
	var e *Error
	if err == nil || !errors.As(err, &e) || e.Op != "lock" {
		t.Fatalf("Lock on an unreachable cluster = %v, want an *Error of lock", err)
	}
	if c.wire.Load() != nil {
		t.Fatal("a failed question decided the pub/sub")
	}
}
