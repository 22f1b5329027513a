// Command demo shows relock at work: several services, each with its own
// Redis connection and rlock.Client as separate processes would have,
// contend for one lock and update a shared counter under it.
//
// It prints a timeline: who holds the lock, who waits, who is woken by the
// release (and how quickly), a reentrant acquisition, a TryLock that gives
// up, the watchdog keeping a long hold alive, a fixed lease running out,
// a fair lock granted in arrival order (with what an operator sees of its
// queue through Client.Inspect), a fencing token turning away a
// holder that stalled past its lease, and finally a check that no
// increment of the counter was lost.
//
// It runs on an embedded miniredis, or on the Redis at REDIS_ADDR if set;
// there it deletes the keys it made when it ends, but the unlock latches
// relock keeps for resent releases, which expire within a minute.
// It is a module of its own, so that the library's users do not carry an
// embedded Redis in their module graph; from the repository's root:
//
//	make demo
//	REDIS_ADDR=localhost:6379 make demo
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"time"

	"github.com/alicebob/miniredis/v2"
)

// The keys the demo works on: the lock, and the counter it protects.
const (
	lockName   = "inventory:sku-42"
	counterKey = "inventory:sku-42:reserved"
)

// config sets the demo's cast and pace.
type config struct {
	Services    []string      // the contending services, one rlock.Client each
	Increments  int           // counter increments per service in the contention scene
	Work        time.Duration // how long an increment keeps the lock
	Lease       time.Duration // watchdog timeout: the lease of locks taken with Lock
	LongHold    time.Duration // how long the watchdog scene holds the lock
	TryWait     time.Duration // how long the TryLock scene waits before giving up
	FencedLease time.Duration // fixed lease of the fencing scene's stalled holder
}

// defaultConfig runs in about six seconds. The lease is far shorter than
// the 30s default so that the watchdog's renewals show within seconds.
func defaultConfig() config {
	return config{
		Services:    []string{"orders", "billing", "shipping", "returns"},
		Increments:  3,
		Work:        100 * time.Millisecond,
		Lease:       600 * time.Millisecond,
		LongHold:    2400 * time.Millisecond, // 4 leases
		TryWait:     300 * time.Millisecond,
		FencedLease: 400 * time.Millisecond,
	}
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	err := start(ctx, os.Stdout, os.Getenv("REDIS_ADDR"))
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
}

// start runs the demo on the Redis at addr, or on an embedded one when addr
// is empty.
func start(ctx context.Context, out io.Writer, addr string) error {
	if addr != "" {
		fmt.Fprintf(out, "Redis: %s (from REDIS_ADDR)\n", addr)
		return run(ctx, out, addr, defaultConfig())
	}
	m, err := startEmbeddedRedis()
	if err != nil {
		return err
	}
	defer m.Close()
	fmt.Fprintf(out, "Redis: embedded miniredis at %s (set REDIS_ADDR to use a real server)\n", m.Addr())
	return run(ctx, out, m.Addr(), defaultConfig())
}

// startEmbeddedRedis starts an in-process miniredis whose TTLs follow the
// wall clock, so that leases expire, and the watchdog must renew them, as
// on a real Redis. (By default miniredis TTLs only move with FastForward.)
func startEmbeddedRedis() (*miniredis.Miniredis, error) {
	m, err := miniredis.Run()
	if err != nil {
		return nil, fmt.Errorf("start miniredis: %w", err)
	}
	m.ClockTTL(true)
	return m, nil
}
