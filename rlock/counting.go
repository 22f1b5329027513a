package rlock

import (
	"container/list"
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
	line := n.c.lines.join(n.channel)
	defer n.c.lines.leave(n.channel, line)
	if wait == 0 && !line.head() {
		return false, nil // others of this Client wait already
	}
	if !line.head() {
		waiting()
		if ok, err := line.await(ctx, deadline, n.c.ctx.Done()); !ok || err != nil {
			return false, err
		}
	}
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

// lines are a Client's lines of waiters, by channel.
type lines struct {
	mu sync.Mutex
	m  map[string]*list.List // of *countPlace
}

// countPlace is one waiter's countPlace in a line.
type countPlace struct {
	l    *list.List
	turn chan struct{} // closed when the countPlace is the line's head
}

// join puts a new waiter at the back of channel's line.
func (ls *lines) join(channel string) *countPlace {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if ls.m == nil {
		ls.m = make(map[string]*list.List)
	}
	l := ls.m[channel]
	if l == nil {
		l = list.New()
		ls.m[channel] = l
	}
	p := &countPlace{l: l, turn: make(chan struct{})}
	l.PushBack(p)
	if l.Len() == 1 {
		close(p.turn)
	}
	return p
}

// leave takes p out of its line; if p was the head, the next waiter's
// turn comes.
func (ls *lines) leave(channel string, p *countPlace) {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	for e := p.l.Front(); e != nil; e = e.Next() {
		if e.Value != p {
			continue
		}
		head := e == p.l.Front()
		p.l.Remove(e)
		if head && p.l.Len() > 0 {
			close(p.l.Front().Value.(*countPlace).turn)
		}
		break
	}
	if p.l.Len() == 0 && ls.m[channel] == p.l {
		delete(ls.m, channel)
	}
}

// head reports whether it is p's turn.
func (p *countPlace) head() bool {
	select {
	case <-p.turn:
		return true
	default:
		return false
	}
}

// await waits for p's turn; false when the deadline (none when zero)
// passed first, or with ctx.Err() or ErrClosed (closed is the Client's).
func (p *countPlace) await(ctx context.Context, deadline time.Time, closed <-chan struct{}) (bool, error) {
	var timeout <-chan time.Time
	if !deadline.IsZero() {
		t := time.NewTimer(time.Until(deadline))
		defer t.Stop()
		timeout = t.C
	}
	select {
	case <-p.turn:
		return true, nil
	case <-timeout:
		return false, nil
	case <-ctx.Done():
		return false, ctx.Err()
	case <-closed:
		return false, ErrClosed
	}
}
