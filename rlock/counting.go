package rlock

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/internal/keys"
	"github.com/relock-go/relock/scripts"
)

// The kinds of the counting objects (Event.Kind).
const (
	KindSemaphore       Kind = "semaphore"        // Semaphore: Redisson's RSemaphore
	KindPermitSemaphore Kind = "permit-semaphore" // PermitExpirableSemaphore: RPermitExpirableSemaphore
	KindCountDownLatch  Kind = "count-down-latch" // CountDownLatch: RCountDownLatch
)

// counter is what a semaphore and a latch handle share: the Client, the
// object's name and channel, and its kind, for errors and events.
type counter struct {
	c       *Client
	name    string
	channel string
	kind    Kind
	nameErr error
}

func newCounter(c *Client, name, channel string, k Kind) counter {
	n := counter{c: c, name: name, channel: channel, kind: k}
	if _, cluster := c.rdb.(*redis.ClusterClient); cluster && keys.Slot(channel) != keys.Slot(name) {
		n.nameErr = fmt.Errorf("%w: on Redis Cluster its channel %q would land in another slot than its key", ErrInvalidName, channel)
	}
	return n
}

// Name is the object's name, which is also its Redis key.
func (n *counter) Name() string { return n.name }

// usable returns why the object cannot be used now, if it cannot.
func (n *counter) usable() error {
	switch {
	case n.name == "":
		return fmt.Errorf("%w: the name is empty", ErrInvalidName)
	case n.nameErr != nil:
		return n.nameErr
	case n.c.closed():
		return ErrClosed
	}
	return nil
}

// begin checks that an operation may start, deciding the Client's pub/sub
// first (its publish command) on a Redis Cluster.
func (n *counter) begin(ctx context.Context) error {
	if err := n.usable(); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	_, err := n.c.pubsub(ctx)
	return err
}

// request begins a request that changes the count (see requests).
func (n *counter) request() (scripts.Request, func()) { return n.c.requests.begin(n.c) }

// observe reports an event of type t, with count, to the Client's
// observers; a release that failed (err) is no event, as an Unlock's is
// not.
func (n *counter) observe(ctx context.Context, t EventType, count int, start time.Time, err error) {
	obs := n.c.obs
	if obs == nil || err != nil {
		return
	}
	now := time.Now()
	e := Event{Type: t, Time: now, Name: n.name, Kind: n.kind, Count: count, Context: ctx}
	if t == EventReleased {
		e.Latency = now.Sub(start)
	} else {
		e.Wait = now.Sub(start)
	}
	obs.ObserveLock(e)
}

// try is one attempt of a counting wait: it reports whether it took what
// it waits for, and if not, how long to sleep at most before the next
// attempt unless woken (by Redisson's rule, or the Client's safety bound).
type try func(ctx context.Context) (ok bool, pause time.Duration, err error)

// wait is the wait loop of the counting objects. It attempts, and while
// the attempt fails sleeps on the object's channel until woken by a
// release or the attempt's pause passes, then attempts again, until ok,
// the wait (forever when negative; 0: one attempt) elapses, or ctx ends.
// While it waits it is listed among the Client's waiters (Activity), for
// permits permits (0 for a latch).
//
// The waiters of one object in one Client form a line, in arrival order:
// only its head attempts and sleeps on the channel, so a release message
// costs one attempt per Client, and a waiter for many permits is never
// overtaken by a later waiter of the same Client for fewer. When the head
// is done it hands the line on, and the next head attempts at once.
// Between Clients, whoever attempts first after a release wins, as with
// Redisson.
func (n *counter) wait(ctx context.Context, wait time.Duration, permits int, attempt try) (ok bool, err error) {
	start := time.Now()
	attempts, wakeups, waited := 0, 0, false
	var w *waiter
	waiting := func() {
		waited = true
		w = &waiter{info: WaiterInfo{Name: n.name, Kind: n.kind, Permits: permits, Since: start}}
		w.attempts.Store(int64(attempts))
		n.c.waiters.add(w)
		n.observe(ctx, EventWaitStarted, 0, start, nil)
	}
	defer func() {
		if w != nil {
			n.c.waiters.remove(w)
		}
		if n.c.obs == nil {
			return
		}
		t := EventAcquired
		if !ok {
			t = EventNotAcquired
		}
		e := Event{Type: t, Time: time.Now(), Name: n.name, Kind: n.kind, Attempts: attempts, Wakeups: wakeups, Waited: waited, Err: err, Context: ctx}
		e.Wait = e.Time.Sub(start)
		if ok {
			e.Count = permits
		}
		n.c.obs.ObserveLock(e)
	}()
	if err := n.begin(ctx); err != nil {
		return false, err
	}
	var deadline time.Time
	if wait > 0 {
		deadline = start.Add(wait)
	}
	line := n.c.countLines.join(n.channel, n.c.ctx.Done())
	defer n.c.countLines.leave(n.channel, line)
	ok, _, err = line.enter(ctx, false, 0)
	if !ok && wait == 0 {
		return false, nil // others of this Client wait already
	}
	if !ok {
		waiting()
		if ok, _, err := line.enter(ctx, false, waitUntil(deadline)); !ok || err != nil {
			return false, err
		}
	}
	defer line.leave(false)
	attempts++
	if w != nil {
		w.attempts.Store(int64(attempts))
	}
	ok, pause, err := attempt(ctx)
	if ok || err != nil || wait == 0 {
		return ok, err
	}
	s, err := n.c.sleepers().listen(ctx, deadline, n.channel)
	if s == nil {
		return false, err
	}
	defer func() { s.close() }()
	if !waited {
		waiting()
	}
	sleep := s.first(pause)
	for {
		if !deadline.IsZero() {
			left := time.Until(deadline)
			if left <= 0 {
				return false, nil
			}
			sleep = min(sleep, left)
		}
		if sleep > 0 {
			woken, err := s.wait(ctx, sleep)
			if errors.Is(err, errMoved) {
				s.close()
				if s, err = n.c.sleepers().listen(ctx, deadline, n.channel); s == nil {
					return false, err
				}
			} else if err != nil {
				return false, err
			}
			if woken {
				wakeups++
				w.wakeups.Store(int64(wakeups))
				n.observe(ctx, EventWoken, 0, start, nil)
			}
		}
		if err := ctx.Err(); err != nil {
			return false, err
		}
		attempts++
		w.attempts.Store(int64(attempts))
		if ok, pause, err = attempt(ctx); ok || err != nil {
			if ok {
				s.won()
			}
			return ok, err
		}
		sleep = pause
	}
}

// countLines are the lines of a Client's counting objects, by channel:
// the acquisitions of one object in the Client take the exclusive slot of
// its line to attempt, so that only the oldest attempts. A line is kept
// while an acquisition uses it.
type countLines struct {
	mu sync.Mutex
	m  map[string]*countLine
}

// countLine is one object's line, with its users: the acquisitions that
// joined it and have not left.
type countLine struct {
	line
	users int
}

// join returns channel's line for a new acquisition; closed is the
// Client's Close.
func (ls *countLines) join(channel string, closed <-chan struct{}) *countLine {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if ls.m == nil {
		ls.m = make(map[string]*countLine)
	}
	l := ls.m[channel]
	if l == nil {
		l = &countLine{line: line{closed: closed}}
		ls.m[channel] = l
	}
	l.users++
	return l
}

// leave tells channel's line l that an acquisition that joined it is
// done with it (its slot left), and drops the line once nobody uses it.
func (ls *countLines) leave(channel string, l *countLine) {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if l.users--; l.users == 0 && ls.m[channel] == l {
		delete(ls.m, channel)
	}
}
