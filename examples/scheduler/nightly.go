package main

import (
	"context"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/rlock"
)

// ledger stands for what the nightly job writes to: it refuses a write
// whose fencing token is lower than one it accepted, so a runner whose
// term ended (paused past its lease, say) cannot overwrite the next one's
// work.
type ledger struct {
	mu      sync.Mutex
	highest int64
}

// write records a write of the term token, and reports whether it was
// accepted.
func (l *ledger) write(token int64) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if token < l.highest {
		return false
	}
	l.highest = token
	return true
}

// nightly runs instances copies of a service, each a Client of its own as
// a process would be, that all want to run the nightly job: an Election
// makes one of them run it, and the others wait their turn, in the order
// they campaigned. The leader runs the job, sending its term's token with
// every write; an observer prints who leads. After each night the leader
// dies (its Client closes, which ends its term at once: the next
// candidate leads at pub/sub speed, not after a lease). It returns how
// many nights ran and the most runners seen at once.
func nightly(ctx context.Context, out io.Writer, addr string, instances, nights int) (runs, most int64, err error) {
	rdb := redis.NewClient(&redis.Options{Addr: addr})
	defer rdb.Close()
	const name = "jobs:nightly"
	ctx, stop := context.WithCancel(ctx)
	defer stop()

	watcher, err := rlock.New(rdb)
	if err != nil {
		return 0, 0, err
	}
	defer watcher.Close()
	seen := watcher.NewElection(name).Observe(ctx)
	show := func(l rlock.Leader) {
		if l.Token == 0 {
			fmt.Fprintln(out, "observer: no leader")
		} else {
			fmt.Fprintf(out, "observer: %s leads (term %d)\n", l.Value, l.Token)
		}
	}
	show(<-seen) // the leader when the observer started: none yet
	printed := make(chan struct{})
	go func() {
		defer close(printed)
		for l := range seen {
			show(l)
		}
	}()

	var running, peak, done atomic.Int64
	var book ledger
	var wg sync.WaitGroup
	errs := make(chan error, instances)
	for i := range instances {
		c, err := rlock.New(rdb)
		if err != nil {
			return 0, 0, err
		}
		defer c.Close()
		e := c.NewElection(name)
		wg.Add(1)
		go func() {
			defer wg.Done()
			term, err := e.Campaign(ctx, fmt.Sprintf("instance-%d", i))
			if err != nil {
				if ctx.Err() == nil {
					errs <- err
				}
				return // the nights are over
			}
			now := running.Add(1)
			for m := peak.Load(); now > m && !peak.CompareAndSwap(m, now); m = peak.Load() {
			}
			for step := range 3 { // the job, in steps, each a fenced write
				select {
				case <-term.Lost():
					fmt.Fprintf(out, "instance %d: term %d lost, stopping\n", i, term.Token())
					running.Add(-1)
					return
				default:
				}
				if !book.write(term.Token()) {
					errs <- fmt.Errorf("instance %d: write of term %d refused", i, term.Token())
				}
				fmt.Fprintf(out, "instance %d: nightly job step %d (term %d)\n", i, step, term.Token())
				time.Sleep(10 * time.Millisecond)
			}
			running.Add(-1)
			if done.Add(1) == int64(nights) {
				stop() // the candidates left leave the line first
				_ = term.Resign(ctx)
				return
			}
			fmt.Fprintf(out, "instance %d dies after its night\n", i)
			_ = c.Close()
		}()
	}
	wg.Wait()
	stop()
	<-printed
	close(errs)
	for err := range errs {
		return 0, 0, err
	}
	fmt.Fprintf(out, "done: %d nights, at most %d runner at once\n", done.Load(), peak.Load())
	return done.Load(), peak.Load(), nil
}
