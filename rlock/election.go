package rlock

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/scripts"
)

// ErrNoLeader is the cause of Election.Leader when the election has no
// leader: nobody was elected, the last leader resigned, or its term ended
// otherwise (its lease ran out, its Client closed).
var ErrNoLeader = errors.New("no leader")

// DefaultElectionHistory is how many changes an election's log keeps
// unless WithElectionHistory says otherwise.
const DefaultElectionHistory = 100

// Leader is the leader of an election: a term's value, token and start.
// The zero Leader (Token 0) is "no leader", as Election.Observe delivers it.
type Leader struct {
	// Value is what the leader says of itself (Campaign, Term.Proclaim):
	// an address, a host name, ...
	Value string
	// Token is the term's fencing token: greater than every earlier
	// term's, and than every token of the fenced lock of the same name.
	Token int64
	// Since is when the term began, by the Redis server's clock.
	Since time.Time
	// Owner is the term's owner id: its field in the lock's hash.
	Owner string
}

// leaderOf is the Leader a change of the election's log left: the zero
// Leader when it left none.
func leaderOf(c scripts.Change) Leader {
	if !c.Leads() {
		return Leader{}
	}
	return Leader{Value: c.Value, Token: c.Token, Since: c.Since, Owner: c.Owner}
}

// same reports whether l and m are the same leader with the same value.
func (l Leader) same(m Leader) bool {
	return l.Token == m.Token && l.Value == m.Value && l.Owner == m.Owner && l.Since.Equal(m.Since)
}

// Election is a leader election among the processes that campaign in it
// (Redis-based, as etcd's concurrency.Election is etcd-based): exactly one
// of them leads at a time, candidates are elected in the order they
// campaigned, and each term carries a fencing token.
//
// A term is the fair lock (FairMutex) of the election's name, held by a
// candidate: it waits in the lock's queue, in arrival order, and leads
// once it holds the lock and has taken the next token of the fenced
// lock's counter of the same name. So a Java service holding Redisson's
// RFairLock, RFencedLock or RLock of the name excludes every Go leader,
// and a Go leader excludes them. The watchdog keeps the lease of the term;
// when it is lost (renewals could not reach Redis, the lock was deleted)
// the term's Lost closes, and the next candidate is elected when the lock
// expires. Resign passes the lock to the next candidate inside the
// release script.
//
// Every change (a term begins, its leader proclaims a new value, it
// resigns or ends) is recorded in the election's record (a hash: the
// current state) and log (a stream of the changes), and announced on the
// election's channel: Leader reads the current leader, Observe follows the
// changes. See docs/election.md.
//
// One Election runs one campaign or term at a time: a Campaign while
// another Campaign of the same *Election waits to be elected, or its term
// lasts, waits for that term to end first (in the process, ctx honoured),
// as a goroutine waits for a sync.Mutex. Create an Election per candidate.
// Its methods are safe for concurrent use.
type Election struct {
	c       *Client
	name    string
	nameErr error // why the name or the options cannot be used
	el      *scripts.Election
	keep    int // entries the log keeps
	// line's exclusive slot is held while a campaign or term of this
	// Election is on: the goroutines that campaign with it take turns, in
	// arrival order.
	line line
}

// ElectionOption configures an Election.
type ElectionOption func(*Election) error

// WithElectionHistory sets how many changes the election's log keeps
// (DefaultElectionHistory by default): an observer that falls further
// behind than that gets the current leader instead of the changes it
// missed. n must be at least 1.
func WithElectionHistory(n int) ElectionOption {
	return func(e *Election) error {
		if n < 1 {
			return fmt.Errorf("election history %d: must be at least 1", n)
		}
		e.keep = n
		return nil
	}
}

// NewElection returns a candidate of, and an observer of, the leader
// election called name. The name is the Redis key of its lock (see
// Election); it follows the rules of lock names (ErrInvalidName), and an
// unusable name or option yields an Election whose every operation
// returns an error saying why (Observe's channel is closed at once).
func (c *Client) NewElection(name string, opts ...ElectionOption) *Election {
	e := &Election{c: c, name: name, nameErr: checkName(name), el: scripts.NewElection(name), keep: DefaultElectionHistory, line: line{closed: c.ctx.Done()}}
	for _, opt := range opts {
		err := errors.New("nil ElectionOption")
		if opt != nil {
			err = opt(e)
		}
		if e.nameErr == nil {
			e.nameErr = err
		}
	}
	return e
}

// Name is the election's name, which is also its lock's Redis key.
func (e *Election) Name() string { return e.name }

// usable returns why the Election cannot be used, if it cannot.
func (e *Election) usable() error {
	if e.nameErr != nil {
		return e.nameErr
	}
	if e.c.closed() {
		return ErrClosed
	}
	return nil
}

// writes are how this Election's scripts write the log.
func (e *Election) writes() scripts.Writes {
	return scripts.Writes{Publish: e.c.publishCommand(), Keep: e.keep}
}

// Campaign waits until this candidate is elected, then returns its term,
// whose leader's value is value. Candidates are elected in the order they
// campaigned, each when the term before ends: by Resign (at once), or by
// loss (when the lost lock expires: within its lease). When ctx ends first
// Campaign returns ctx.Err(), having left the queue: nothing of the
// campaign is left in Redis. It returns ErrClosed when the Client closes.
func (e *Election) Campaign(ctx context.Context, value string) (*Term, error) {
	const op = "campaign"
	if err := e.usable(); err != nil {
		return nil, opError(op, e.name, err)
	}
	start := time.Now()
	if _, err := e.line.enter(ctx, false, noDeadline); err != nil {
		return nil, opError(op, e.name, err)
	}
	var t *Term // keeps the line's slot until it ends
	defer func() {
		if t == nil {
			e.line.leave(false)
		}
	}()
	electionsOf.in(e.c).use(e.name, 1, 0)
	defer electionsOf.in(e.c).use(e.name, -1, 0)
	for t == nil {
		m := e.c.newFairMutex(e.name, KindElection)
		if err := m.lockOwn(ctx); err != nil {
			return nil, opError(op, e.name, err)
		}
		var err error
		if t, err = e.elect(ctx, m, value, start); err != nil {
			return nil, opError(op, e.name, err)
		}
		// A nil term: the lock was lost before the term could begin;
		// campaign again.
	}
	return t, nil
}

// elect begins the term of m, which holds the lock: nil (and no error)
// when the lock was lost before. A term that cannot begin gives the lock
// back.
func (e *Election) elect(ctx context.Context, m *FairMutex, value string, start time.Time) (*Term, error) {
	if !electionsOf.in(e.c).begin() {
		e.giveBack(ctx, m)
		return nil, ErrClosed
	}
	defer electionsOf.in(e.c).begun()
	rdb, ack, err := e.scripter(ctx)
	if err != nil {
		e.giveBack(ctx, m)
		return nil, err
	}
	rec, ok, err := e.el.Elect(ctx, rdb, m.Owner(), value, e.writes())
	if err == nil && ok && ack != nil {
		err = ack.check()
	}
	if err != nil || !ok {
		e.giveBack(ctx, m)
		return nil, err
	}
	t := newTerm(e, m, rec, value)
	if obs := e.c.obs; obs != nil {
		ev := t.event(EventElected)
		ev.Wait, ev.Context = time.Since(start), ctx
		obs.ObserveLock(ev)
	}
	return t, nil
}

// scripter returns where a term begins: the Client's connection, or, with
// WithReplicaAck, its master's with a WAIT after the script, so that the
// term's token is acknowledged as its lock was (ack, to check afterwards).
// Without that, a failover could lose the token after the lock's
// acquisition was acknowledged, and the next term take the same one.
func (e *Election) scripter(ctx context.Context) (redis.Scripter, *replicated, error) {
	if e.c.opts.replicas == 0 {
		return e.c.rdb, nil, nil
	}
	master, err := e.c.master(ctx, e.name)
	if err != nil {
		return nil, nil, err
	}
	ack := &replicated{Scripter: master, master: master, replicas: e.c.opts.replicas, timeout: e.c.opts.replicaTimeout}
	return ack, ack, nil
}

// giveBack releases the lock of a campaign that did not become a term.
// Should the release fail, the lock is no longer renewed and expires
// within its lease.
func (e *Election) giveBack(ctx context.Context, m *FairMutex) { _ = m.Unlock(ctx) }

// Leader returns the election's leader: the term its record shows, if
// that term's owner holds the lock; an error wrapping ErrNoLeader when
// there is none (a term whose lock expired without a word is no longer the
// leader). It changes nothing in Redis and takes one round trip.
func (e *Election) Leader(ctx context.Context) (Leader, error) {
	const op = "leader"
	if err := e.usable(); err != nil {
		return Leader{}, opError(op, e.name, err)
	}
	s, err := e.el.State(ctx, e.c.rdb, scripts.NoChanges, false, scripts.Writes{})
	switch {
	case err != nil:
		return Leader{}, opError(op, e.name, err)
	case !s.Held:
		return Leader{}, opError(op, e.name, ErrNoLeader)
	}
	return leaderOf(s.Last), nil
}
