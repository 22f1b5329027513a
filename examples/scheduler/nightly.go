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

// shown is the terms the observer has printed, for their leaders to wait
// on: a term's channel is closed once it is printed.
type shown struct {
	mu      sync.Mutex
	printed map[int64]chan struct{}
}

// of is the channel of term token, made on first use.
func (s *shown) of(token int64) chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.printed == nil {
		s.printed = make(map[int64]chan struct{})
	}
	ch, ok := s.printed[token]
	if !ok {
		ch = make(chan struct{})
		s.printed[token] = ch
	}
	return ch
}

// set records that the observer printed term token (again, when its
// leader proclaimed a value).
func (s *shown) set(token int64) {
	ch := s.of(token)
	select {
	case <-ch:
	default:
		close(ch)
	}
}

// nightly runs instances copies of a service, each a Client of its own as
// a process would be, that all want to run the nightly job: an Election
// makes one of them run it, and the others wait their turn, in the order
// they campaigned. The leader runs the job, sending its term's token with
// every write; an observer prints who leads. After each night the leader
// shuts down: its Client's Close ends its term at once, so the next
// candidate leads at pub/sub speed (a leader that crashed would hold the
// term until its lease ran out). It returns how many nights ran and the
// most runners seen at once.
//
// The observer hears of a change after it happened, where the new leader
// knows at once: so that the output tells things in the order they
// happened, a leader starts its job once the observer has printed its
// term (and the end of the term before).
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
	var terms shown
	show := func(l rlock.Leader) {
		if l.Token == 0 {
			fmt.Fprintln(out, "observer: no leader")
		} else {
			fmt.Fprintf(out, "observer: %s leads (term %d)\n", l.Value, l.Token)
		}
		terms.set(l.Token)
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
			select { // Observe tells every change, in order
			case <-terms.of(term.Token()):
			case <-ctx.Done():
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
			fmt.Fprintf(out, "instance %d shuts down after its night: Close ends its term\n", i)
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
