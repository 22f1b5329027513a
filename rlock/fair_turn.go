package rlock

import (
	"context"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/queue"
	"github.com/relock-go/relock/scripts"
)

// fairQueue is a fair lock's queue in Redis as fairTurns use it: a
// FairMutex's queue.Queue, or a fair RWMutex's queue.RWQueue.
type fairQueue interface {
	Channel(entry string) string
	Place(entry string) *queue.Place
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
	return &fairTurn{
		lockTurn: lockTurn{listening: listening{c: o.c, channel: ts.q.Channel(ts.entry), kept: ts}, o: o, lease: lease},
		turns:    ts,
		slot:     slot{line: &ts.line},
	}
}

// passOn is nil: a fair lock is passed on by its queue, inside the
// release script (a grant).
func (ts *fairTurns) passOn(*owner) recipient { return nil }

// released tells the wait that the release granted the lock to, if it is
// this Client's, now rather than by the grant message.
func (ts *fairTurns) released(o *owner, reply scripts.Reply) {
	if reply.Granted != "" {
		granteesOf.in(o.c).tell(reply.Granted, reply.Grant)
	}
}

// fairTurn is one acquisition of a fair lock. Its first attempt never
// queues; once listening, it holds the slot of its owner's line, and every
// attempt queues the owner or keeps its place, until it gets the lock or
// gives up, and then leaves the queue.
type fairTurn struct {
	lockTurn
	turns *fairTurns
	slot  slot         // of the owner's line: held while it may queue
	place *queue.Place // in the queue; nil until its first queueing attempt
	pos   int          // the place's position its last attempt found (0: the head)
}

func (t *fairTurn) attempt(ctx context.Context) (outcome, error) { return t.o.attempt(ctx, t.lease, t) }

// send makes the attempt due now: until the turn listens, one that takes
// the lock only if it is free and nobody waits; then a queueing one, or
// none when a grant was heard. Called with the owner's mu held.
func (t *fairTurn) send(ctx context.Context, rdb redis.Scripter, lease time.Duration, count int) (outcome, error) {
	if t.s == nil {
		return t.o.kind.attempt(ctx, rdb, lease, count)
	}
	if t.place == nil {
		t.place = t.turns.q.Place(t.turns.entry)
		// Listed until done: a release of this Client that grants the
		// place tells it in the process.
		if sub, grant := t.sub(), t.place.Grant(); sub != nil && grant != "" {
			granteesOf.in(t.c).add(t.turns.entry, sub, grant)
		}
	}
	// A grant heard since the last attempt: the owner holds the lock (its
	// field written, its lease set, inside the release). Its lease is
	// reckoned from the last attempt until a claim confirms it (if one
	// does: owner.attempt), so the grant is taken only while that leaves
	// five sixths of the lease: the watchdog's first renewal, up to a
	// third of a lease later, then has half a lease of slack; else, and
	// when another goroutine of the owner took the lock first or replicas
	// must acknowledge the acquisition, the attempt claims it.
	if count == 0 && t.c.opts.replicas == 0 && time.Since(t.o.lastSent) < lease/6 && t.granted() {
		return outcome{ok: true, granted: true}, nil
	}
	a, err := t.place.Attempt(ctx, rdb, lease, count)
	t.pos = a.Position
	return fairOutcome(a), upgradeError(err)
}

// granted reports, once, that the grant of this turn's place was heard: a
// release granted the owner the lock. A spinner hears none.
func (t *fairTurn) granted() bool {
	sub := t.sub()
	return sub != nil && sub.TakeGrant(t.place.Grant())
}

// claim confirms a grant this turn heard of, re-arming the lease, and
// reports whether the owner still holds the lock.
func (t *fairTurn) claim(ctx context.Context, lease time.Duration) (bool, error) {
	a, err := t.place.Claim(ctx, t.c.rdb, lease)
	return a.Acquired, err
}

// enter joins the queue at once, without a first attempt, when a
// subscription of a recent wait is still kept (the joining attempt takes a
// free lock nobody waits for, as the first attempt would). When the slot
// or the channel cannot be had, the first attempt runs without them, and
// a failed one waits as any.
func (t *fairTurn) enter(single bool) wait {
	if !t.queues(single) || !t.turns.hasLinger() {
		return wait{}
	}
	return wait{slot: &t.slot, listen: &t.listening, optional: true}
}

// next takes the slot of the owner's line, in turn with the owner's other
// goroutines, and listens on the owner's own channel (on a kept
// subscription if there is one): the attempts queue from then on, the
// first at once. Once listening, it sleeps as the queue's waiter says.
func (t *fairTurn) next(out outcome) wait {
	if t.s == nil {
		return wait{slot: &t.slot, listen: &t.listening}
	}
	d := t.place.Pause(queue.Attempt{Position: t.pos, TTL: out.ttl})
	return wait{listen: &t.listening, sleep: d}
}

// handedOff is false: a fair lock's turn is granted by its queue (see
// send).
func (t *fairTurn) handedOff() bool { return false }

// done leaves the queue unless the lock was taken (even when ctx has
// ended; when Redis cannot be reached, the place is evicted later, as a
// dead waiter's), keeps the subscription of a successful wait for a
// while (lingerTime), and leaves the owner's line to the next goroutine.
func (t *fairTurn) done(ctx context.Context, ok bool) {
	if t.place != nil {
		granteesOf.in(t.c).remove(t.turns.entry, t.place.Grant())
	}
	if t.place != nil && !ok {
		_, _ = persist(t.c, ctx, func(ctx context.Context) (struct{}, error) {
			return struct{}{}, t.place.Leave(ctx)
		})
	}
	switch {
	case t.s == nil:
	case ok:
		t.turns.keepLinger(t.s)
	default:
		t.s.close()
	}
	t.slot.leave()
}

// fairOutcome is a queue attempt's outcome.
func fairOutcome(a queue.Attempt) outcome {
	return outcome{ok: a.Acquired, ttl: a.TTL}
}

// hasLinger reports whether a subscription of a recent wait is kept.
func (ts *fairTurns) hasLinger() bool {
	ts.lingerMu.Lock()
	defer ts.lingerMu.Unlock()
	return ts.linger != nil
}

// takeKept hands over the kept subscription, if any, to a new wait.
func (ts *fairTurns) takeKept() sleeper {
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
	if s := ts.takeKept(); s != nil {
		s.close()
	}
}
