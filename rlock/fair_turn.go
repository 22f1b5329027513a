package rlock

import (
	"context"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/queue"
)

// fairQueue is a fair lock's queue in Redis as fairTurns use it: a
// FairMutex's queue.Queue, or a fair RWMutex's queue.RWQueue.
type fairQueue interface {
	Channel(entry string) string
	Waiter(entry string) *queue.Waiter
	Heartbeat() time.Duration
}

// fairTurns is the turn-taking policy of an owner of a fair lock: its
// place in the lock's queue in Redis (its entry), where it is woken alone
// on a channel of its own. The goroutines of the owner take turns holding
// that place.
type fairTurns struct {
	c     *Client
	q     fairQueue
	entry string // the owner's entry in the queue
	// line's exclusive slot is held by the one goroutine of this owner
	// that waits in the queue: an owner has one place there, and the
	// goroutines sharing it take turns, in arrival order, so that one
	// giving up or being served cannot leave another believing it still
	// has the place.
	line line

	// linger is the confirmed subscription of this owner's last wait, kept
	// for lingerTime after it got the lock: an owner that locks again soon
	// joins the queue at once, without a first attempt and a new
	// subscription. It is closed when its timer fires unused.
	lingerMu    sync.Mutex
	linger      sleeper
	lingerTimer *time.Timer
}

func newFairTurns(c *Client, q fairQueue, entry string) *fairTurns {
	return &fairTurns{c: c, q: q, entry: entry, line: line{closed: c.ctx.Done()}}
}

func (ts *fairTurns) start(o *owner, lease time.Duration) turn {
	return &fairTurn{lockTurn: lockTurn{listening: listening{c: o.c, channel: ts.q.Channel(ts.entry)}, o: o, lease: lease}, turns: ts}
}

// fairTurn is one acquisition of a fair lock. Its first attempt never
// queues; once listening, it holds the slot of its owner's line, and every
// attempt queues the owner or keeps its place, until it gets the lock or
// gives up, and then leaves the queue.
type fairTurn struct {
	lockTurn
	turns  *fairTurns
	qw     *queue.Waiter // nil until listening: the owner's place in the queue
	holder bool          // holds the slot of the owner's line
}

func (t *fairTurn) attempt(ctx context.Context) (outcome, error) { return t.o.attempt(ctx, t.lease, t) }

func (t *fairTurn) send(ctx context.Context, rdb redis.Scripter, lease time.Duration, holds int) (outcome, error) {
	if t.qw == nil {
		return t.o.kind.attempt(ctx, rdb, lease, holds)
	}
	// A grant heard since the last attempt: the owner holds the lock (its
	// field written, its lease set, inside the release). Its lease is
	// reckoned from the last attempt until a claim confirms it (if one
	// does: owner.attempt), so the grant is taken so only while that
	// leaves at least half the lease;
	// else, and when another goroutine of the owner took the lock first or
	// replicas must acknowledge the acquisition, the attempt claims it.
	// (Called with the owner's mu held.)
	if holds == 0 && t.c.opts.replicas == 0 && time.Since(t.o.lastSent) < lease/2 && t.s.granted(t.qw.Grant()) {
		return outcome{ok: true, pos: -1, granted: true}, nil
	}
	a, err := t.qw.Attempt(ctx, rdb, lease, holds)
	return fairOutcome(a), upgradeError(err)
}

// claim confirms a grant this turn heard of, re-arming the lease, and
// reports whether the owner still holds the lock.
func (t *fairTurn) claim(ctx context.Context, lease time.Duration) (bool, error) {
	a, err := t.qw.Claim(ctx, t.c.rdb, lease)
	return a.Acquired, err
}

// enter joins the queue at once, without a first attempt, when a
// subscription of a recent wait is still kept (the joining attempt takes a
// free lock nobody waits for, as the first attempt would).
func (t *fairTurn) enter(ctx context.Context, deadline time.Time, single bool) (time.Duration, bool, error) {
	t.deadline = deadline
	if !t.queues(single) || !t.turns.hasLinger() {
		return 0, false, nil
	}
	if _, ok, _ := t.join(ctx); !ok {
		// A failed join leaves no sleeper: the first attempt runs, and
		// listen reports why the wait ends.
		return 0, false, nil
	}
	return 0, true, nil
}

func (t *fairTurn) listen(ctx context.Context, _ outcome) (time.Duration, bool, error) {
	return t.join(ctx)
}

// join takes the slot of the owner's line, in turn with the owner's other
// goroutines, and starts listening on its own channel (taking a kept
// subscription if there is one), and the attempts queue from then on. It
// returns false, with ctx.Err(), ErrClosed, or nil when the wait elapsed,
// if it cannot.
func (t *fairTurn) join(ctx context.Context) (time.Duration, bool, error) {
	if !t.holder {
		ok, _, err := t.turns.line.enter(ctx, false, waitUntil(t.deadline))
		if !ok {
			return 0, false, err
		}
		t.holder = true
	}
	if t.s = t.turns.takeLinger(); t.s == nil {
		if ok, err := t.listening.listen(ctx); !ok {
			return 0, false, err
		}
	}
	t.qw = t.turns.q.Waiter(t.turns.entry)
	return 0, true, nil
}

// handedOff is false: a fair lock's turn is granted by its queue (see
// attempt).
func (t *fairTurn) handedOff() bool { return false }

func (t *fairTurn) pause(out outcome) time.Duration {
	return t.qw.Pause(queue.Attempt{Position: out.pos, TTL: out.ttl})
}

// done leaves the queue unless the lock was taken (even when ctx has
// ended; when Redis cannot be reached, the place is evicted later, as a
// dead waiter's), keeps the subscription of a successful wait for a
// while (lingerTime), and leaves the owner's line to the next goroutine.
func (t *fairTurn) done(ctx context.Context, ok bool) {
	if t.qw != nil && !ok {
		_, _ = persist(t.c, ctx, func(ctx context.Context) (struct{}, error) {
			return struct{}{}, t.qw.Leave(ctx)
		})
	}
	switch {
	case t.s == nil:
	case ok:
		t.turns.keepLinger(t.s)
	default:
		t.s.close()
	}
	if t.holder {
		t.turns.line.leave(false)
	}
}

// fairOutcome is a queue attempt's outcome.
func fairOutcome(a queue.Attempt) outcome {
	return outcome{ok: a.Acquired, ttl: a.TTL, pos: a.Position}
}

// hasLinger reports whether a subscription of a recent wait is kept.
func (ts *fairTurns) hasLinger() bool {
	ts.lingerMu.Lock()
	defer ts.lingerMu.Unlock()
	return ts.linger != nil
}

// takeLinger hands over the kept subscription, if any, to a new wait.
func (ts *fairTurns) takeLinger() sleeper {
	ts.lingerMu.Lock()
	defer ts.lingerMu.Unlock()
	s := ts.linger
	ts.linger = nil
	if ts.lingerTimer != nil {
		ts.lingerTimer.Stop()
	}
	return s
}

// lingerTime is how long the subscription of a wait that got the lock is
// kept for the owner's next wait: a heartbeat, at most a second.
func (ts *fairTurns) lingerTime() time.Duration { return min(ts.q.Heartbeat(), time.Second) }

// keepLinger keeps s, the subscription of a wait that got the lock, for
// lingerTime.
func (ts *fairTurns) keepLinger(s sleeper) {
	ts.lingerMu.Lock()
	defer ts.lingerMu.Unlock()
	if ts.linger != nil || ts.c.closed() {
		s.close()
		return
	}
	ts.linger = s
	if ts.lingerTimer == nil {
		ts.lingerTimer = time.AfterFunc(ts.lingerTime(), ts.dropLinger)
	} else {
		ts.lingerTimer.Reset(ts.lingerTime())
	}
}

// dropLinger closes the kept subscription, unused for lingerTime.
func (ts *fairTurns) dropLinger() {
	if s := ts.takeLinger(); s != nil {
		s.close()
	}
}
