package rlock

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/internal/keys"
	"github.com/relock-go/relock/scripts"
)

// countHandle is what the handles of the counting objects (a semaphore, a
// permit-expirable semaphore, a latch) share: the Client, the object's name
// and channel, and its kind, for errors and events.
type countHandle struct {
	c       *Client
	name    string
	channel string
	kind    Kind
	nameErr error
}

func newCountHandle(c *Client, name, channel string, k Kind) countHandle {
	h := countHandle{c: c, name: name, channel: channel, kind: k}
	if _, cluster := c.rdb.(*redis.ClusterClient); cluster && keys.Slot(channel) != keys.Slot(name) {
		h.nameErr = fmt.Errorf("%w: on Redis Cluster its channel %q would land in another slot than its key", ErrInvalidName, channel)
	}
	return h
}

// Name is the object's name, which is also its Redis key.
func (h *countHandle) Name() string { return h.name }

// usable returns why the object cannot be used now, if it cannot.
func (h *countHandle) usable() error {
	switch {
	case h.name == "":
		return fmt.Errorf("%w: the name is empty", ErrInvalidName)
	case h.nameErr != nil:
		return h.nameErr
	case h.c.closed():
		return ErrClosed
	}
	return nil
}

// begin checks that an operation may start (Client.begin), on an object
// that can be used.
func (h *countHandle) begin(ctx context.Context) error {
	if err := h.usable(); err != nil {
		return err
	}
	return h.c.begin(ctx)
}

// released records who listened when a release of the object's permits
// was heard (the script's count): while clients other than relock's take
// their turns on its channel, this Client's acquisitions that start
// within the step-aside let their woken threads go first (countTurn.enter),
// as after a lock's published release (stepAsides).
func (h *countHandle) released(ls scripts.Listeners) {
	if ls.Subscribers == 0 && !h.c.classicCluster() {
		return // nobody heard it
	}
	if d, turns := h.c.listenersAt(h.channel, ls); turns {
		h.c.asides.heard(h.name, d)
	}
}

// request begins a request that changes the count (see requests).
func (h *countHandle) request() (scripts.Request, func()) { return requestsOf.in(h.c).begin(h.c) }

// observe reports an event of type t, with count, to the Client's
// observers; a release that failed (err) is no event, as an Unlock's is
// not.
func (h *countHandle) observe(ctx context.Context, t EventType, count int, start time.Time, err error) {
	obs := h.c.obs
	if obs == nil || err != nil {
		return
	}
	now := time.Now()
	e := Event{Type: t, Time: now, Name: h.name, Kind: h.kind, Count: count, Context: ctx}
	if t == EventReleased {
		e.Latency = now.Sub(start)
	} else {
		e.Wait = now.Sub(start)
	}
	obs.ObserveLock(e)
}

// acquire takes permits, or a latch's zero, with the turn t (of the
// object's kind), through the wait loop: by deadline (none when zero; one
// that has passed: a single attempt), or until ctx ends.
func (h *countHandle) acquire(ctx context.Context, t turn, deadline time.Time) (bool, error) {
	if err := h.usable(); err != nil {
		return false, err
	}
	out, err := h.c.waitLoop(ctx, t, deadline)
	return out.ok, err
}

// turn is the start of an acquisition's turn for permits permits (0 for
// a latch), which the kind's turn completes with its attempt.
func (h *countHandle) turn(permits int) countTurn {
	return countTurn{listening: listening{c: h.c, channel: h.channel}, h: h, permits: permits}
}

// countTurn is what the turns of the counting objects' acquisitions share.
// The acquisitions of one object in one Client take turns in the object's
// line, in arrival order: only the one holding its slot attempts and
// sleeps on the object's channel, so a release message costs one attempt
// per Client, and a waiter for many permits is never overtaken by a later
// waiter of the same Client for fewer. When it is done it leaves the slot,
// and the next one attempts at once. Between Clients, whoever attempts
// first after a release wins, as with Redisson; while Redisson's clients
// listen on the channel, the Clients take turns with them as at a lock's
// releases (pubsub's share: the waiter that won last lets them go first),
// and an acquisition right after this Client's release steps aside
// (enter). An attempt's outcome carries, as its ttl, how long to sleep
// unless woken before the next: by Redisson's rule, or the Client's safety
// bound, the watchdog timeout.
type countTurn struct {
	listening
	h       *countHandle
	permits int        // waited for; 0 for a latch
	line    *countLine // the object's line, once joined
	slot    slot       // of the object's line
}

func (t *countTurn) waiter() WaiterInfo {
	return WaiterInfo{Name: t.h.name, Kind: t.h.kind, Permits: t.permits}
}

// enter takes the slot of the object's line, if it is free and nobody
// waits for it; else the acquisition waits for it, behind the Client's
// earlier acquisitions of the object (a single attempt gives up). An
// acquisition that takes the slot within the step-aside after a release of
// this Client that clients other than relock's heard
// (countHandle.released) listens, and attempts once the step-aside is
// over, or a release wakes it: their woken threads go first.
func (t *countTurn) enter(single bool) wait {
	t.line = countLinesOf.in(t.c).join(t.channel, t.c.ctx.Done())
	t.slot = slot{line: &t.line.line}
	if !t.slot.try() {
		return wait{slot: &t.slot}
	}
	if until := t.c.asides.until(t.h.name); !single && !until.IsZero() {
		return wait{listen: &t.listening, until: until, optional: true}
	}
	return wait{}
}

func (t *countTurn) next(out outcome) wait { return t.after(out.ttl) }

// done leaves the object's channel and its line, where the next
// acquisition of the Client attempts at once.
func (t *countTurn) done(_ context.Context, ok bool) {
	if t.s != nil {
		if ok {
			t.won(false)
		}
		t.s.close()
	}
	t.slot.leave()
	if t.line != nil {
		countLinesOf.in(t.c).leave(t.channel, t.line)
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

// countLinesOf are the lines of each Client's counting objects.
var countLinesOf = newKindState(func(*Client) *countLines { return &countLines{} })

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

// used reports whether acquisitions use channel's line now.
func (ls *countLines) used(channel string) bool {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	return ls.m[channel] != nil
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
