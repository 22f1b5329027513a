package faultproxy_test

import (
	"context"
	"errors"
	"io"
	"os"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/test/testkit"
)

func TestBlackHole(t *testing.T) {
	p := checkedProxy(t)
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
	p := checkedProxy(t)
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
		p := checkedProxy(t)
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
		p := checkedProxy(t)
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
		p := checkedProxy(t)
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
	p := checkedProxy(t)
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

func TestDropRequestsKeepsSubscriptionsFromRedis(t *testing.T) {
	p := checkedProxy(t)
	ctx := context.Background()
	rdb := client(t, p.Addr())
	p.DropRequests("subscribe")
	if err := rdb.Set(ctx, "k", "v", 0).Err(); err != nil {
		t.Fatalf("SET while SUBSCRIBE is dropped: %v", err)
	}
	sub := rdb.Subscribe(ctx)
	defer sub.Close()
	if err := sub.Subscribe(ctx, "ch"); err != nil {
		t.Fatal(err)
	}
	if _, err := sub.ReceiveTimeout(ctx, replyTimeout); !isTimeout(err) {
		t.Fatalf("confirmation of a dropped SUBSCRIBE: %v, want none (a timeout)", err)
	}
	admin := srv.Client(t)
	if n := admin.PubSubNumSub(ctx, "ch").Val()["ch"]; n != 0 {
		t.Fatalf("NUMSUB ch = %d: the dropped SUBSCRIBE reached Redis", n)
	}
	p.DropRequests("")
	other := rdb.Subscribe(ctx, "ch2")
	defer other.Close()
	if _, err := other.ReceiveTimeout(ctx, within); err != nil {
		t.Fatalf("SUBSCRIBE after DropRequests(\"\"): %v", err)
	}
	if n := admin.PubSubNumSub(ctx, "ch2").Val()["ch2"]; n != 1 {
		t.Fatalf("NUMSUB ch2 = %d after DropRequests(\"\"), want 1", n)
	}
}

// A stall holds every byte back and loses none: a command sent meanwhile
// runs once it heals, even from a client that gave up and closed its
// connection, and a connection that kept waiting reads its replies in
// order, in step with Redis.
func TestStallDeliversWhatItHeld(t *testing.T) {
	p := checkedProxy(t)
	rdb := client(t, p.Addr())
	ctx := context.Background()
	if err := rdb.Ping(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	waiting := rawConn(t, p.Addr())

	p.Stall(true)
	if err := rdb.Set(timeoutCtx(t), "k", "v", 0).Err(); !isTimeout(err) {
		t.Fatalf("SET in a stall: %v, want a timeout", err)
	}
	send(t, waiting, "PING\r\nECHO x\r\n")
	_ = waiting.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
	if n, err := waiting.Read(make([]byte, 16)); n != 0 || !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("read in a stall = %d bytes, %v; want nothing until the deadline", n, err)
	}
	if n, err := srv.Client(t).Exists(ctx, "k").Result(); err != nil || n != 0 {
		t.Fatalf("EXISTS k = %d, %v: the SET reached Redis during the stall", n, err)
	}

	p.Stall(false)
	_ = waiting.SetReadDeadline(time.Now().Add(within))
	want := "+PONG\r\n$1\r\nx\r\n"
	got := make([]byte, len(want))
	if _, err := io.ReadFull(waiting, got); err != nil || string(got) != want {
		t.Fatalf("replies after the stall = %q, %v; want %q", got, err, want)
	}
	testkit.Eventually(t, within, "the SET sent during the stall runs", func() bool {
		return srv.Client(t).Exists(ctx, "k").Val() == 1
	})
	if err := rdb.Set(ctx, "k2", "v", 0).Err(); err != nil {
		t.Fatalf("SET after the stall: %v", err)
	}
}

// Connections reset during a stall deliver nothing of what it held.
func TestStallEndedByResetDeliversNothing(t *testing.T) {
	p := checkedProxy(t)
	ctx := context.Background()
	c := rawConn(t, p.Addr())
	send(t, c, "PING\r\n") // the proxy holds the connection once it answered
	if _, err := io.ReadFull(c, make([]byte, len("+PONG\r\n"))); err != nil {
		t.Fatal(err)
	}
	p.Stall(true)
	send(t, c, "SET severed v\r\n")
	p.ResetAll()
	p.Stall(false)
	if _, err := c.Read(make([]byte, 16)); !isReset(err) {
		t.Fatalf("read after a reset in a stall: %v, want a reset", err)
	}
	if err := client(t, p.Addr()).Set(ctx, "after", "v", 0).Err(); err != nil {
		t.Fatalf("SET on a new connection: %v", err)
	}
	if n, err := srv.Client(t).Exists(ctx, "severed").Result(); err != nil || n != 0 {
		t.Fatalf("EXISTS severed = %d, %v: the held SET reached Redis", n, err)
	}
}
