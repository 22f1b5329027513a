package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// demo is one run: the services, the timeline they print on, and the
// number of increments made, which the final check compares with the
// counter in Redis.
type demo struct {
	cfg        config
	tl         *timeline
	services   []*service
	increments atomic.Int64
}

// scene is one part of the demo, played after the previous one ended.
type scene struct {
	title string
	play  func(context.Context) error
}

// run plays every scene on the Redis at addr, then checks the counter,
// and deletes the keys it made (cleanUp), however it ended. It returns an
// error if a scene fails or an increment was lost.
func run(ctx context.Context, out io.Writer, addr string, cfg config) error {
	d, err := newDemo(ctx, out, addr, cfg)
	if err != nil {
		return err
	}
	defer d.close()
	err = d.play(ctx)
	return errors.Join(err, d.cleanUp(ctx))
}

// leftKeys are the keys the demo makes that no release deletes and that
// never expire: the counter, and the fencing scene's token counter, which
// a fenced lock keeps for good so that its tokens only grow (Redisson's
// layout); nothing takes that lock once the demo ends. The locks' own keys
// go with their last release; the unlock latches that relock keeps for
// resent releases (redisson_unlock_latch:*) expire within a minute.
var leftKeys = []string{counterKey, "redisson_lock_token:{" + fencedLockName + "}"}

// cleanUp deletes leftKeys, also after ctx ended (an interrupted demo
// cleans up too).
func (d *demo) cleanUp(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := d.service(0).rdb.Del(ctx, leftKeys...).Err(); err != nil {
		return fmt.Errorf("deleting the demo's keys: %w", err)
	}
	return nil
}

// newDemo connects the services to the Redis at addr and sets the counter
// to zero.
func newDemo(ctx context.Context, out io.Writer, addr string, cfg config) (*demo, error) {
	if len(cfg.Services) < 2 {
		return nil, errors.New("the demo needs at least two services")
	}
	d := &demo{cfg: cfg, tl: newTimeline(out)}
	for _, name := range cfg.Services {
		s, err := newService(name, addr, cfg.Lease, d.tl)
		if err != nil {
			d.close()
			return nil, err
		}
		d.services = append(d.services, s)
	}
	if err := d.resetCounter(ctx); err != nil {
		d.close()
		return nil, err
	}
	return d, nil
}

// play plays the scenes in order, then checks the counter.
func (d *demo) play(ctx context.Context) error {
	scenes := []scene{
		{"Contention: every service increments the counter under the lock", d.contention},
		{"Reentrancy: a holder re-enters explicitly with Reenter", d.reentrancy},
		{"TryLock: give up after a short wait", d.tryLock},
		{fmt.Sprintf("Watchdog: a hold outlives its %v lease", d.cfg.Lease), d.watchdog},
		{"Fixed lease: no watchdog, so the lease runs out", d.fixedLease},
		{"Fair lock: granted strictly in arrival order", d.fairness},
		{"Fencing: a stalled holder's late write is rejected", d.fencing},
		{"Read-write lock: readers share it, a writer excludes them", d.readWrite},
		// Further scenes go here, one function each.
	}
	for _, sc := range scenes {
		d.tl.scene(sc.title)
		if err := sc.play(ctx); err != nil {
			return fmt.Errorf("scene %q: %w", sc.title, err)
		}
	}
	d.tl.scene("Check: was every increment kept?")
	return d.checkCounter(ctx)
}

// close stops every service.
func (d *demo) close() {
	for _, s := range d.services {
		s.Close()
	}
}

// service returns the i-th service, wrapping around so that every scene
// finds its cast however few services are configured.
func (d *demo) service(i int) *service { return d.services[i%len(d.services)] }

// resetCounter starts the counter from zero, so that repeated runs on one
// Redis check only their own increments.
func (d *demo) resetCounter(ctx context.Context) error {
	return d.service(0).rdb.Set(ctx, counterKey, 0, 0).Err()
}

// checkCounter compares the counter with the increments made: any lost
// update means two services were in the critical section at once.
func (d *demo) checkCounter(ctx context.Context) error {
	s := d.service(0)
	got, err := s.rdb.Get(ctx, counterKey).Int()
	if err != nil && !errors.Is(err, redis.Nil) {
		return err
	}
	want := int(d.increments.Load())
	if got != want {
		s.say("FAIL: counter = %d, but %d increments were made: updates were lost", got, want)
		return fmt.Errorf("counter is %d, want %d: mutual exclusion failed", got, want)
	}
	s.say("OK: counter = %d = increments made: no update lost, mutual exclusion held", got)
	return nil
}
