// Command candidate campaigns in a leader election on a Redis server and
// leads until it is killed: the process that the chaos tests kill with
// SIGKILL to check that a dead leader is replaced within its lease.
//
//	candidate -addr 127.0.0.1:6379 -name jobs -lease 1s -value host-a
//
// It prints "owner <term owner id> <token>" once elected, then blocks.
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
	name := flag.String("name", "election", "election name")
	lease := flag.Duration("lease", 30*time.Second, "watchdog timeout: the lease of the term")
	value := flag.String("value", "candidate", "the leader's value")
	flag.Parse()
	if err := run(*addr, *name, *value, *lease); err != nil {
		fmt.Fprintln(os.Stderr, "candidate:", err)
		os.Exit(1)
	}
}

// run campaigns, then blocks until the process is killed.
func run(addr, name, value string, lease time.Duration) error {
	rdb := redis.NewClient(&redis.Options{Addr: addr})
	c, err := rlock.New(rdb, rlock.WithWatchdogTimeout(lease))
	if err != nil {
		return err
	}
	term, err := c.NewElection(name).Campaign(context.Background(), value)
	if err != nil {
		return err
	}
	fmt.Println("owner", term.Owner(), term.Token())
	<-term.Lost()
	return fmt.Errorf("term %d lost", term.Token())
}
