package main

import (
	"context"
	"fmt"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/rlock"
)

// startRedLock makes a Client of each redlock server (through its proxy),
// when the worker runs the redlock workload: as users are told, each on a
// go-redis client of its own with short timeouts.
func (w *worker) startRedLock() error {
	if len(w.c.redlock) == 0 {
		return nil
	}
	if len(w.c.redlock) != 3 {
		return fmt.Errorf("-redlock names %d servers, want 3", len(w.c.redlock))
	}
	for _, addr := range w.c.redlock {
		rdb := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: 1,
			DialTimeout: dialTimeout, ReadTimeout: ioTimeout, WriteTimeout: ioTimeout})
		w.rdbs = append(w.rdbs, rdb)
		lc, err := rlock.New(rdb, rlock.WithWatchdogTimeout(w.c.lease), rlock.WithClientName(w.c.process))
		if err != nil {
			return err
		}
		w.redlock = append(w.redlock, lc)
	}
	return nil
}

// redLock returns the redlock workload's iteration on the loop's object: a
// RedLock over a Mutex of that name on each redlock server, held (with
// the members' watchdogs) like the fair lock: take it, pause, release.
func (l *loop) redLock() func(context.Context) bool {
	if len(l.w.redlock) == 0 {
		return func(context.Context) bool { return false }
	}
	var members []rlock.Member
	for _, lc := range l.w.redlock {
		members = append(members, lc.NewMutex(l.object))
	}
	rl := rlock.NewRedLock(members...)
	return func(ctx context.Context) bool {
		if _, ok := l.acquire(ctx, "", untokened(rl.Lock)); !ok {
			return false
		}
		end := l.watch(rl.Lost(), 0)
		l.hold()
		end()
		l.unlock(rl.Unlock)
		return true
	}
}
