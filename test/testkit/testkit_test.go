package testkit

import (
	"context"
	"errors"
	"net"
	"os"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/test/testenv"
)

func TestMain(m *testing.M) { os.Exit(testenv.Main(m.Run)) }

func TestCtxEndsAfterItsBound(t *testing.T) {
	e := NewRecorder(t)
	defer e.End()
	ctx := Ctx(e, 20*time.Millisecond)
	select {
	case <-ctx.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("context still open 10s after its 20ms bound")
	}
	if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		t.Fatalf("Err = %v, want DeadlineExceeded", ctx.Err())
	}
}

func TestCtxEndsWithTheTest(t *testing.T) {
	e := NewRecorder(t)
	ctx := Ctx(e, time.Hour)
	if ctx.Err() != nil {
		t.Fatalf("Err before the test ends = %v", ctx.Err())
	}
	e.End()
	if !errors.Is(ctx.Err(), context.Canceled) {
		t.Fatalf("Err after the test ended = %v, want Canceled", ctx.Err())
	}
}

func TestEventuallyWaitsForTheCondition(t *testing.T) {
	e := NewRecorder(t)
	start := time.Now()
	e.Run(func(tb testing.TB) {
		Eventually(tb, 10*time.Second, "a while passed", func() bool { return time.Since(start) > 30*time.Millisecond })
	})
	if e.Failure != "" {
		t.Fatalf("failed: %s", e.Failure)
	}
	if d := time.Since(start); d <= 30*time.Millisecond {
		t.Fatalf("returned after %v, before the condition held", d)
	}
}

func TestEventuallyFailsWhenTheConditionNeverHolds(t *testing.T) {
	e := NewRecorder(t)
	e.Run(func(tb testing.TB) {
		Eventually(tb, 20*time.Millisecond, "pigs fly", func() bool { return false })
	})
	if want := "not within 20ms: pigs fly"; e.Failure != want {
		t.Fatalf("failed with %q, want %q", e.Failure, want)
	}
}

func TestClosed(t *testing.T) {
	c := make(chan struct{})
	if Closed(c) {
		t.Fatal("an open channel is Closed")
	}
	close(c)
	if !Closed(c) {
		t.Fatal("a closed channel is not Closed")
	}
}

func TestPauseEndsWithItsContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	start := time.Now()
	Pause(ctx, time.Hour)
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("Pause with an ended context took %v", d)
	}
	start = time.Now()
	Pause(context.Background(), 20*time.Millisecond)
	if d := time.Since(start); d < 20*time.Millisecond {
		t.Fatalf("Pause of 20ms returned after %v", d)
	}
}

func TestMiniredisClientIsOfTheServerAndClosedWithTheTest(t *testing.T) {
	e := NewRecorder(t)
	mr, rdb := Miniredis(e)
	if err := rdb.Set(context.Background(), "k", "v", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if got, _ := mr.Get("k"); got != "v" {
		t.Fatalf("the server holds %q, want the client's write", got)
	}
	e.End()
	if err := rdb.Ping(context.Background()).Err(); err == nil {
		t.Fatal("the client still works after the test ended")
	}
}

func TestSubscribersCountsAndSaysWhenItCannotTell(t *testing.T) {
	_, rdb := Miniredis(t)
	ctx := Ctx(t, 10*time.Second)
	sub := rdb.Subscribe(ctx, "ch")
	defer sub.Close()
	if _, err := sub.Receive(ctx); err != nil {
		t.Fatal(err)
	}
	if n := Subscribers(ctx, rdb, "ch"); n != 1 {
		t.Fatalf("Subscribers = %d, want 1", n)
	}
	if n := Subscribers(ctx, rdb, "other"); n != 0 {
		t.Fatalf("Subscribers of a channel without any = %d, want 0", n)
	}
	_ = rdb.Close()
	if n := Subscribers(ctx, rdb, "ch"); n != -1 {
		t.Fatalf("Subscribers through a closed client = %d, want -1", n)
	}
}

func TestStartProxyForwardsUntilTheTestEnds(t *testing.T) {
	mr, _ := Miniredis(t)
	e := NewRecorder(t)
	p := StartProxy(e, mr.Addr())
	rdb := redis.NewClient(&redis.Options{Addr: p.Addr(), MaxRetries: -1})
	defer rdb.Close()
	ctx := Ctx(t, 10*time.Second)
	if err := rdb.Set(ctx, "k", "v", 0).Err(); err != nil {
		t.Fatalf("SET through the proxy: %v", err)
	}
	if got, _ := mr.Get("k"); got != "v" {
		t.Fatalf("the server holds %q, want the write made through the proxy", got)
	}
	e.End()
	if c, err := net.Dial("tcp", p.Addr()); err == nil {
		_ = c.Close()
		t.Fatal("the proxy still accepts connections after the test ended")
	}
}
