package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// fairLockName is the lock of the fair scene. A name is locked in one mode
// only, so the fair lock has its own.
const fairLockName = "inventory:sku-42:restock"

// fairQueueKey is the Redis list in which a FairMutex's waiters queue, in
// Redisson's layout: the head is the next owner.
func fairQueueKey(name string) string { return "redisson_lock_queue:{" + name + "}" }

// fairness has one service hold a FairMutex while the others arrive one
// after another and queue for it. Each arrives only once the previous one
// is seen in the queue in Redis, so the arrival order is known. When the
// holder unlocks, only the head of the queue is woken, and the lock passes
// from waiter to waiter in exactly that order.
func (d *demo) fairness(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	holder := d.service(0)
	hm := holder.locks.NewFairMutex(fairLockName)
	if err := hm.Lock(ctx); err != nil {
		return err
	}
	holder.say("acquires %s, a FairMutex: whoever must wait for it queues in Redis", hm.Name())

	var (
		mu     sync.Mutex
		grants []string // who got the lock, in order; appended under the lock
	)
	grant := func(name string) int {
		mu.Lock()
		defer mu.Unlock()
		grants = append(grants, name)
		return len(grants)
	}

	queue := fairQueueKey(fairLockName)
	var arrivals []string
	done := make(chan error, len(d.services))
	var err error
	for i := 1; i < len(d.services) && err == nil; i++ {
		w := d.service(i)
		arrivals = append(arrivals, w.name)
		go func() { done <- d.fairTurn(ctx, w, grant) }()
		if err = awaitQueueLen(ctx, holder.rdb, queue, int64(i)); err == nil {
			w.say("queues: %s in line (LLEN %s = %d)", ordinal(i), queue, i)
		}
	}
	if err == nil {
		err = d.inspect(ctx, holder, fairLockName)
	}
	if err == nil {
		d.tl.unlocking(holder.name, "unlocks: only the head of the queue is woken")
		err = hm.Unlock(ctx)
	}
	if err != nil {
		cancel() // the waiters leave the queue
		_ = hm.Unlock(context.WithoutCancel(ctx))
	}
	errs := []error{err}
	for range arrivals {
		errs = append(errs, <-done)
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	return d.checkGrantOrder(arrivals, grants)
}

// fairTurn is one waiter of the fair scene: it waits in the queue for the
// lock, records its grant, works a while and unlocks.
func (d *demo) fairTurn(ctx context.Context, s *service, grant func(string) int) error {
	m := s.locks.NewFairMutex(fairLockName)
	start := time.Now()
	if err := m.Lock(ctx); err != nil {
		return fmt.Errorf("%s: %w", s.name, err)
	}
	n := grant(s.name)
	waited := time.Since(start).Round(time.Millisecond)
	if who, ago, ok := d.tl.handoff(start); ok {
		s.say("is granted it (grant %d) after %v in line, %v after %s unlocked", n, waited, roundSmall(ago), who)
	} else {
		s.say("is granted it (grant %d) after %v in line", n, waited)
	}
	if err := sleep(ctx, d.cfg.Work); err != nil {
		_ = m.Unlock(context.WithoutCancel(ctx))
		return err
	}
	d.tl.unlocking(s.name, "unlocks")
	if err := m.Unlock(ctx); err != nil {
		return fmt.Errorf("%s: %w", s.name, err)
	}
	return nil
}

// inspect prints what an operator sees of the lock: Client.Inspect's view,
// which the relock command and the /debug/locks page show too.
func (d *demo) inspect(ctx context.Context, s *service, name string) error {
	info, err := s.locks.Inspect(ctx, name)
	if err != nil {
		return err
	}
	d.tl.note("An operator's view (Client.Inspect; `relock inspect %s`, or the /debug/locks page):", name)
	for _, h := range info.Holders {
		d.tl.note("  %s lock, held by %s (%s), hold count %d, TTL %v", info.Kind, d.tl.nameOf(h.Owner), h.Owner, h.Count, info.TTL.Round(time.Millisecond))
	}
	for i, q := range info.Queue {
		d.tl.note("  queue %d: %s, evicted if silent past %v from now", i+1, d.tl.nameOf(q.Owner), time.Until(q.Deadline).Round(time.Second))
	}
	d.tl.note("  %d subscriptions listen on its channels", info.Subscribers)
	return nil
}

// checkGrantOrder fails unless the lock was granted in arrival order.
func (d *demo) checkGrantOrder(arrivals, grants []string) error {
	if !slices.Equal(arrivals, grants) {
		d.tl.note("FAIL: grants %s, but arrivals %s", strings.Join(grants, ", "), strings.Join(arrivals, ", "))
		return fmt.Errorf("fair lock granted to %v, want arrival order %v", grants, arrivals)
	}
	d.tl.note("OK: grants in arrival order (FIFO): %s", strings.Join(grants, " -> "))
	d.tl.note("Unlike the first scene's lock, no waiter raced another: each was woken for its turn alone.")
	return nil
}

// awaitQueueLen polls the length of the Redis list queue until it is n, for
// at most two seconds.
func awaitQueueLen(ctx context.Context, rdb *redis.Client, queue string, n int64) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	for {
		got, err := rdb.LLen(ctx, queue).Result()
		if err == nil && got == n {
			return nil
		}
		if err == nil {
			err = sleep(ctx, 2*time.Millisecond)
		}
		if err != nil {
			return fmt.Errorf("waiting for LLEN %s = %d (last %d): %w", queue, n, got, err)
		}
	}
}

// ordinal spells n as 1st, 2nd, 3rd, 4th...
func ordinal(n int) string {
	suffix := "th"
	if n%100 < 11 || n%100 > 13 {
		switch n % 10 {
		case 1:
			suffix = "st"
		case 2:
			suffix = "nd"
		case 3:
			suffix = "rd"
		}
	}
	return fmt.Sprintf("%d%s", n, suffix)
}
