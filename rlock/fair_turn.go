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
	// joins the line at once, without a first attempt and a new
	// subscription. It is closed when its timer fires unused.
	lingerMu    sync.Mutex
	linger      sleeper
	lingerTimer *time.Timer
}

func newFairTurns(c *Client, q fairQueue, entry string) *fairTurns {
	return &fairTurns{c: c, q: q, entry: entry, line: line{closed: c.ctx.Done()}}
}

func (l *fairTurns) start(o *owner, deadline time.Time, _ time.Duration) turn {
	return &fairTurn{listening: listening{o: o, channel: l.q.Channel(l.entry), deadline: deadline}, l: l}
}

// fairTurn is one acquisition of a fair lock. Its first attempt never
// queues; once listening, it holds the slot of its owner's line, and every
// attempt queues the owner or keeps its place, until it gets the lock or
// gives up, and then leaves the queue.
type fairTurn struct {
	listening
	l      *fairTurns
	qw     *queue.Waiter // nil until listening: the owner's place in the queue
	holder bool          // holds the slot of the owner's line
}

func (t *fairTurn) attempt(ctx context.Context, rdb redis.Scripter, lease time.Duration, holds int) (outcome, error) {
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
	if holds == 0 && t.o.c.opts.replicas == 0 && time.Since(t.o.lastSent) < lease/2 && t.s.granted(t.qw.Grant()) {
		return outcome{ok: true, pos: -1, granted: true}, nil
	}
	a, err := t.qw.Attempt(ctx, rdb, lease, holds)
	return fairOutcome(a), upgradeError(err)
}

// claim confirms a grant this turn heard of, re-arming the lease, and
// reports whether the owner still holds the lock.
func (t *fairTurn) claim(ctx context.Context, lease time.Duration) (bool, error) {
	a, err := t.qw.Claim(ctx, t.o.c.rdb, lease)
	return a.Acquired, err
}

// enter joins the queue at once, without a first attempt, when a
// subscription of a recent wait is still kept (the joining attempt takes a
// free lock nobody waits for, as the first attempt would).
func (t *fairTurn) enter(ctx context.Context) (time.Duration, bool) {
	if !t.l.hasLinger() {
		return 0, false
	}
	_, ok, _ := t.join(ctx)
	// A failed join leaves no sleeper: the first attempt runs, and listen
	// reports why the wait ends.
	return 0, ok
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
		ok, _, err := t.l.line.enter(ctx, false, waitUntil(t.deadline))
		if !ok {
			return 0, false, err
		}
		t.holder = true
	}
	if t.s = t.l.takeLinger(); t.s == nil {
		if ok, err := t.listening.listen(ctx); !ok {
			return 0, false, err
		}
	}
	t.qw = t.l.q.Waiter(t.l.entry)
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
		_, _ = persist(t.o.c, ctx, func(ctx context.Context) (struct{}, error) {
			return struct{}{}, t.qw.Leave(ctx)
		})
	}
	switch {
	case t.s == nil:
	case ok:
		t.l.keepLinger(t.s)
	default:
		t.s.close()
	}
	if t.holder {
		t.l.line.leave(false)
	}
}

// fairOutcome is a queue attempt's outcome.
func fairOutcome(a queue.Attempt) outcome {
	return outcome{ok: a.Acquired, ttl: a.TTL, pos: a.Position}
}

// hasLinger reports whether a subscription of a recent wait is kept.
func (l *fairTurns) hasLinger() bool {
	l.lingerMu.Lock()
	defer l.lingerMu.Unlock()
	return l.linger != nil
}

// takeLinger hands over the kept subscription, if any, to a new wait.
func (l *fairTurns) takeLinger() sleeper {
	l.lingerMu.Lock()
	defer l.lingerMu.Unlock()
	s := l.linger
	l.linger = nil
	if l.lingerTimer != nil {
		l.lingerTimer.Stop()
	}
	return s
}

// lingerTime is how long the subscription of a wait that got the lock is
// kept for the owner's next wait: a heartbeat, at most a second.
func (l *fairTurns) lingerTime() time.Duration { return min(l.q.Heartbeat(), time.Second) }

// keepLinger keeps s, the subscription of a wait that got the lock, for
// lingerTime.
func (l *fairTurns) keepLinger(s sleeper) {
	l.lingerMu.Lock()
	defer l.lingerMu.Unlock()
	if l.linger != nil || l.c.closed() {
		s.close()
		return
	}
	l.linger = s
	if l.lingerTimer == nil {
		l.lingerTimer = time.AfterFunc(l.lingerTime(), l.dropLinger)
	} else {
		l.lingerTimer.Reset(l.lingerTime())
	}
}

// dropLinger closes the kept subscription, unused for lingerTime.
func (l *fairTurns) dropLinger() {
	if s := l.takeLinger(); s != nil {
		s.close()
	}
}
