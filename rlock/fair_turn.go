package rlock

import (
	"context"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/queue"
)

// fairQueue is a fair lock's line in Redis as a fairLine uses it: a
// FairMutex's queue.Queue, or a fair RWMutex's queue.RWQueue.
type fairQueue interface {
	Channel(entry string) string
	Waiter(entry string) *queue.Waiter
	Heartbeat() time.Duration
}

// fairLine is the turn-taking policy of an owner of a fair lock: its place
// in the lock's line in Redis (its entry), where it is woken alone on a
// channel of its own. The goroutines of the owner take turns holding that
// place.
type fairLine struct {
	c     *Client
	q     fairQueue
	entry string // the owner's entry in the line
	// waiting is held by the one goroutine of this owner that waits in
	// the line: an owner has one place in line, and the goroutines sharing
	// it take turns, so that one giving up or being served cannot leave
	// another believing it still has the place.
	waiting chan struct{}

	// linger is the confirmed subscription of this owner's last wait, kept
	// for lingerTime after it got the lock: an owner that locks again soon
	// joins the line at once, without a first attempt and a new
	// subscription. It is closed when its timer fires unused.
	lingerMu    sync.Mutex
	linger      sleeper
	lingerTimer *time.Timer
}

func newFairLine(c *Client, q fairQueue, entry string) *fairLine {
	return &fairLine{c: c, q: q, entry: entry, waiting: make(chan struct{}, 1)}
}

func (l *fairLine) start(o *owner, deadline time.Time, _ time.Duration) turn {
	return &fairTurn{listening: listening{o: o, channel: l.q.Channel(l.entry), deadline: deadline}, l: l}
}

// fairTurn is one acquisition of a fair lock. Its first attempt never
// queues; once listening, it holds the owner's waiting token and every
// attempt queues the owner or keeps its place, until it gets the lock or
// gives up, and then leaves the line.
type fairTurn struct {
	listening
	l      *fairLine
	qw     *queue.Waiter // nil until listening: the owner's place in line
	holder bool          // holds the owner's waiting token
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

// enter joins the line at once, without a first attempt, when a
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

// join takes the owner's waiting token and starts listening on its own
// channel (taking a kept subscription if there is one), and the attempts
// queue from then on. It returns false, with ctx.Err(), ErrClosed, or nil
// when the wait elapsed, if it cannot.
func (t *fairTurn) join(ctx context.Context) (time.Duration, bool, error) {
	if !t.holder {
		if t.holder = t.l.takeWaiting(ctx, t.deadline); !t.holder {
			if err := ctx.Err(); err != nil {
				return 0, false, err
			}
			if t.o.c.closed() {
				return 0, false, ErrClosed
			}
			return 0, false, nil
		}
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

// done leaves the line unless the lock was taken (even when ctx has
// ended; when Redis cannot be reached, the place is evicted later, as a
// dead waiter's), keeps the subscription of a successful wait for a
// while (lingerTime), and hands the waiting token on.
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
		<-t.l.waiting
	}
}

// fairOutcome is a queue attempt's outcome.
func fairOutcome(a queue.Attempt) outcome {
	return outcome{ok: a.Acquired, ttl: a.TTL, pos: a.Position}
}

// hasLinger reports whether a subscription of a recent wait is kept.
func (l *fairLine) hasLinger() bool {
	l.lingerMu.Lock()
	defer l.lingerMu.Unlock()
	return l.linger != nil
}

// takeLinger hands over the kept subscription, if any, to a new wait.
func (l *fairLine) takeLinger() sleeper {
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
func (l *fairLine) lingerTime() time.Duration { return min(l.q.Heartbeat(), time.Second) }

// keepLinger keeps s, the subscription of a wait that got the lock, for
// lingerTime.
func (l *fairLine) keepLinger(s sleeper) {
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
func (l *fairLine) dropLinger() {
	if s := l.takeLinger(); s != nil {
		s.close()
	}
}

// takeWaiting waits until no other goroutine of this owner is waiting in
// the line, and reports false if ctx ends, the Client closes or the
// deadline (none when zero) passes first.
func (l *fairLine) takeWaiting(ctx context.Context, deadline time.Time) bool {
	select {
	case l.waiting <- struct{}{}:
		return true
	default:
	}
	var expired <-chan time.Time
	if !deadline.IsZero() {
		t := time.NewTimer(time.Until(deadline))
		defer t.Stop()
		expired = t.C
	}
	select {
	case l.waiting <- struct{}{}:
		return true
	case <-ctx.Done():
	case <-l.c.ctx.Done():
	case <-expired:
	}
	return false
}
