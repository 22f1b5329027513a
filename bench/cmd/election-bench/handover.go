package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/internal/keys"
	"github.com/relock-go/relock/rlock"
)

// candidate is one candidate, as a process would be: a Client with a
// Redis connection pool of its own.
type candidate struct {
	rdb *redis.Client
	c   *rlock.Client
	e   *rlock.Election
}

// newCandidate returns a candidate in the election name on addr, whose
// terms have lease.
func newCandidate(addr, name string, lease time.Duration) (*candidate, error) {
	rdb := redis.NewClient(&redis.Options{Addr: addr})
	c, err := rlock.New(rdb, rlock.WithWatchdogTimeout(lease))
	if err != nil {
		_ = rdb.Close()
		return nil, err
	}
	return &candidate{rdb: rdb, c: c, e: c.NewElection(name)}, nil
}

func (cd *candidate) close() {
	_ = cd.c.Close()
	_ = cd.rdb.Close()
}

// elected is what a Campaign returned, and when.
type elected struct {
	by   *candidate
	term *rlock.Term
	at   time.Time
	err  error
}

// campaign runs cd's Campaign in a goroutine that reports to events.
func campaign(ctx context.Context, cd *candidate, events chan<- elected) {
	go func() {
		term, err := cd.e.Campaign(ctx, "bench")
		events <- elected{cd, term, time.Now(), err}
	}()
}

// awaitQueued waits until the election name has n candidates in line:
// the benchmark's own check, polling, outside what it measures.
func awaitQueued(ctx context.Context, rdb *redis.Client, name string, n int64) error {
	for {
		got, err := rdb.LLen(ctx, keys.Queue(name)).Result()
		if err != nil || got >= n {
			return err
		}
		time.Sleep(100 * time.Microsecond)
	}
}

// resignations measures c.resigns hand-overs by Resign among c.candidates
// candidates in the election name: each leader resigns once another
// candidate is in line, then campaigns again.
func resignations(ctx context.Context, addr, name string, c config) ([]time.Duration, error) {
	events := make(chan elected, c.candidates)
	cands := make([]*candidate, c.candidates)
	for i := range cands {
		cd, err := newCandidate(addr, name, c.lease)
		if err != nil {
			return nil, err
		}
		defer cd.close()
		cands[i] = cd
	}
	ctx, cancel := context.WithCancel(ctx)
	defer func() {
		cancel()
		for range c.candidates - 1 { // the Campaigns still waiting
			<-events
		}
	}()
	for _, cd := range cands {
		campaign(ctx, cd, events)
	}
	ev := <-events
	var ds []time.Duration
	for range c.resigns {
		if ev.err != nil {
			return ds, ev.err
		}
		if err := awaitQueued(ctx, cands[0].rdb, name, 1); err != nil {
			return ds, err
		}
		start := time.Now()
		if err := ev.term.Resign(ctx); err != nil {
			return ds, err
		}
		campaign(ctx, ev.by, events)
		next := <-events
		ds = append(ds, next.at.Sub(start))
		ev = next
	}
	if ev.err != nil {
		return ds, ev.err
	}
	return ds, ev.term.Resign(ctx)
}

// killings measures c.kills hand-overs from a leader's process killed with
// SIGKILL, at a random moment of its renewal period, to a candidate in
// line behind it.
func killings(ctx context.Context, addr, self, name string, c config) ([]time.Duration, error) {
	cd, err := newCandidate(addr, name, c.lease)
	if err != nil {
		return nil, err
	}
	defer cd.close()
	events := make(chan elected, 1)
	var ds []time.Duration
	for range c.kills {
		leader, err := startLeader(self, addr, name, c.lease)
		if err != nil {
			return ds, err
		}
		campaign(ctx, cd, events)
		if err := awaitQueued(ctx, cd.rdb, name, 1); err != nil {
			leader.kill()
			return ds, err
		}
		time.Sleep(rand.N(c.lease / 3))
		start := time.Now()
		leader.kill()
		ev := <-events
		if ev.err != nil {
			return ds, ev.err
		}
		ds = append(ds, ev.at.Sub(start))
		if err := ev.term.Resign(ctx); err != nil {
			return ds, err
		}
	}
	return ds, nil
}

// child is a leader's process.
type child struct{ cmd *exec.Cmd }

// startLeader starts self as a leader of the election name and returns it
// once it leads.
func startLeader(self, addr, name string, lease time.Duration) (*child, error) {
	cmd := exec.Command(self, "-child", "-addr", addr, "-name", name, "-lease", lease.String())
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	ch := &child{cmd}
	sc := bufio.NewScanner(out)
	if !sc.Scan() || !strings.HasPrefix(sc.Text(), "elected ") {
		ch.kill()
		return nil, fmt.Errorf("leader process: %q, %v", sc.Text(), sc.Err())
	}
	return ch, nil
}

// kill kills the process with SIGKILL and reaps it.
func (ch *child) kill() {
	_ = ch.cmd.Process.Kill()
	_ = ch.cmd.Wait()
}

// lead is the -child process: it campaigns in the election name on addr
// with lease, prints "elected TOKEN" and leads until it is killed.
func lead(addr, name string, lease time.Duration) error {
	cd, err := newCandidate(addr, name, lease)
	if err != nil {
		return err
	}
	term, err := cd.e.Campaign(context.Background(), "child")
	if err != nil {
		return err
	}
	fmt.Println("elected", term.Token())
	<-term.Lost()
	return errors.New("term lost before the process was killed")
}
