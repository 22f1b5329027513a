// Command holder takes a lock on a Redis server and keeps it, waits for
// it, or campaigns in a leader election and leads, until it is killed: the
// process that the chaos tests kill with SIGKILL to check that a dead
// client's lock, its place in a fair lock's queue, or its term, does not
// outlive it by more than its lease or wait timeout.
//
//	holder -addr 127.0.0.1:6379 -name orders -mode hold -lease 1s
//	holder -addr 127.0.0.1:6379 -name orders -mode queue -fair-wait 600ms
//	holder -addr 127.0.0.1:6379 -name jobs -mode campaign -lease 1s -value host-a
//
// It prints "owner <id>" first, then "held" once it holds the lock; a
// candidate prints "owner <term owner id> <token>" once elected.
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
	name := flag.String("name", "holder", "lock or election name")
	mode := flag.String("mode", "hold", "hold: take a Mutex and keep it; queue: wait in line for a FairMutex; campaign: campaign in an election and lead")
	lease := flag.Duration("lease", 30*time.Second, "watchdog timeout: the lease the watchdog renews")
	fairWait := flag.Duration("fair-wait", rlock.DefaultFairWaitTimeout, "fair wait timeout")
	value := flag.String("value", "candidate", "the leader's value (campaign)")
	flag.Parse()
	rdb := redis.NewClient(&redis.Options{Addr: *addr})
	c, err := rlock.New(rdb, rlock.WithWatchdogTimeout(*lease), rlock.WithFairWaitTimeout(*fairWait))
	if err == nil {
		err = run(c, *name, *mode, *value)
	}
	fmt.Fprintln(os.Stderr, "holder:", err)
	os.Exit(1)
}

// run takes, waits for or campaigns for the lock, then blocks until the
// process is killed; it returns why it could not.
func run(c *rlock.Client, name, mode, value string) error {
	ctx := context.Background()
	var lock func(context.Context) error
	var owner string
	switch mode {
	case "hold":
		m := c.NewMutex(name)
		lock, owner = m.Lock, m.Owner()
	case "queue":
		m := c.NewFairMutex(name)
		lock, owner = m.Lock, m.Owner()
	case "campaign":
		term, err := c.NewElection(name).Campaign(ctx, value)
		if err != nil {
			return err
		}
		fmt.Println("owner", term.Owner(), term.Token())
		<-term.Lost()
		return fmt.Errorf("term %d lost", term.Token())
	default:
		return fmt.Errorf("unknown mode %q", mode)
	}
	fmt.Println("owner", owner)
	if err := lock(ctx); err != nil {
		return err
	}
	fmt.Println("held")
	select {} // until killed
}
