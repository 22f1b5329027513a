package relockotel

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"slices"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	semconv "go.opentelemetry.io/otel/semconv/v1.39.0"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/rlock"
	"github.com/relock-go/relock/test/testkit"
)

// Failures are classified by error.type, a few fixed values.
func TestErrorType(t *testing.T) {
	for _, tc := range []struct {
		e    rlock.Event
		want string
	}{
		{rlock.Event{Type: rlock.EventAcquired}, ""},
		{rlock.Event{Type: rlock.EventNotAcquired}, ErrorTimeout},
		{rlock.Event{Type: rlock.EventNotAcquired, Err: fmt.Errorf("lock x: %w", context.Canceled)}, ErrorCanceled},
		{rlock.Event{Type: rlock.EventNotAcquired, Err: context.DeadlineExceeded}, ErrorDeadlineExceeded},
		{rlock.Event{Type: rlock.EventNotAcquired, Err: &rlock.Error{Op: "lock", Name: "x", Err: rlock.ErrClosed}}, ErrorClosed},
		{rlock.Event{Type: rlock.EventNotAcquired, Err: rlock.ErrWrongType}, ErrorWrongType},
		{rlock.Event{Type: rlock.EventNotAcquired, Err: rlock.ErrInvalidName}, ErrorInvalidArgument},
		{rlock.Event{Type: rlock.EventNotAcquired, Err: rlock.ErrInvalidCount}, ErrorInvalidArgument},
		{rlock.Event{Type: rlock.EventNotAcquired, Err: rlock.ErrInvalidPermitID}, ErrorInvalidArgument},
		{rlock.Event{Type: rlock.EventNotAcquired, Err: rlock.ErrNotReplicated}, ErrorNotReplicated},
		{rlock.Event{Type: rlock.EventNotAcquired, Err: fmt.Errorf("x: %w", replyError("READONLY You can't write against a read only replica."))}, ErrorRedis},
		{rlock.Event{Type: rlock.EventNotAcquired, Err: &net.OpError{Op: "read", Err: os.ErrDeadlineExceeded}}, ErrorIOTimeout},
		{rlock.Event{Type: rlock.EventNotAcquired, Err: errors.New("connection refused")}, ErrorOther},
	} {
		if got := acquisitionErrorType(tc.e); got != tc.want {
			t.Errorf("error.type of %v with %v = %q, want %q", tc.e.Type, tc.e.Err, got, tc.want)
		}
	}
}

// replyError is an error reply of a Redis server, as go-redis makes them.
type replyError string

func (e replyError) Error() string { return string(e) }

// RedisError marks a server's reply: it implements redis.Error.
func (replyError) RedisError() {}

// WithServer tells deployments apart: server.address and server.port on
// metrics and spans, beside db.system.name.
func TestWithServer(t *testing.T) {
	other := redis.NewClient(&redis.Options{Addr: "redis-eu.internal:6380"})
	t.Cleanup(func() { _ = other.Close() })
	h := newHarness(t, []Option{WithServer(other)})
	m := h.client.NewMutex("otel:server")
	if err := m.Lock(testkit.Ctx(t, within)); err != nil {
		t.Fatal(err)
	}
	server := []attribute.KeyValue{semconv.DBSystemNameRedis, semconv.ServerAddress("redis-eu.internal"), semconv.ServerPort(6380)}
	h.wantSum(t, "relock.lock.acquisitions", 1, append(server, acquired)...)
	lock := h.ended(SpanLock)[0]
	for _, kv := range server {
		if got, ok := attr(lock, kv.Key); !ok || got != kv.Value {
			t.Errorf("%s span's %s = %v, want %v", SpanLock, kv.Key, got.Emit(), kv.Value.Emit())
		}
	}
	for _, tc := range []struct {
		rdb  redis.UniversalClient
		want []attribute.KeyValue
	}{
		{redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{"10.0.0.1:7000", "10.0.0.2:7000"}}), []attribute.KeyValue{semconv.ServerAddress("10.0.0.1"), semconv.ServerPort(7000)}},
		{redis.NewClient(&redis.Options{Network: "unix", Addr: "/run/redis.sock"}), []attribute.KeyValue{semconv.ServerAddress("/run/redis.sock")}},
		{redis.NewFailoverClient(&redis.FailoverOptions{MasterName: "main", SentinelAddrs: []string{"10.0.0.5:26379"}}), nil},
	} {
		got := serverAttrs(tc.rdb)
		_ = tc.rdb.Close()
		if !slices.Equal(got, tc.want) {
			t.Errorf("serverAttrs(%T) = %v, want %v", tc.rdb, got, tc.want)
		}
	}
}
