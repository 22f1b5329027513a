// Command holder takes a lock on a Redis server and keeps it, or waits for
// it, until it is killed: the process that the chaos tests kill with
// SIGKILL to check that a dead client's lock, or its place in a fair
// lock's queue, does not outlive it by more than its lease or wait timeout.
//
//	holder -addr 127.0.0.1:6379 -name orders -mode hold -lease 1s
//	holder -addr 127.0.0.1:6379 -name orders -mode queue -fair-wait 600ms
//
// It prints "owner <id>" first, then "held" once it holds the lock.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/rlock"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:6379", "redis-server host:port")
	name := flag.String("name", "holder", "lock name")
	mode := flag.String("mode", "hold", "hold: take a Mutex and keep it; queue: wait in line for a FairMutex")
	lease := flag.Duration("lease", 30*time.Second, "watchdog timeout: the lease the watchdog renews")
	fairWait := flag.Duration("fair-wait", rlock.DefaultFairWaitTimeout, "fair wait timeout")
	flag.Parse()
	if err := run(*addr, *name, *mode, *lease, *fairWait); err != nil {
		fmt.Fprintln(os.Stderr, "holder:", err)
		os.Exit(1)
	}
}

// run takes or waits for the lock, then blocks until the process is killed.
func run(addr, name, mode string, lease, fairWait time.Duration) error {
	rdb := redis.NewClient(&redis.Options{Addr: addr})
	c, err := rlock.New(rdb, rlock.WithWatchdogTimeout(lease), rlock.WithFairWaitTimeout(fairWait))
	if err != nil {
		return err
	}
	var lock func(context.Context) error
	var owner string
	switch mode {
	case "hold":
		m := c.NewMutex(name)
		lock, owner = m.Lock, m.Owner()
	case "queue":
		m := c.NewFairMutex(name)
		lock, owner = m.Lock, m.Owner()
	default:
		return fmt.Errorf("unknown mode %q", mode)
	}
	fmt.Println("owner", owner)
	if err := lock(context.Background()); err != nil {
		return err
	}
	fmt.Println("held")
	select {} // until killed
}
