package rlock

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/scripts"
)

// owner is one owner of a lock, as every kind of lock handle keeps it: its
// identity, its kind of lock, its turn-taking, its line, and its current
// hold. The handles embed it (Mutex, FairMutex and an RWMutex's sides
// through handle), so its exported methods are theirs.
type owner struct {
	c       *Client
	name    string
	id      string // "<client id>:<seq>": the lock hash's field
	channel string // where the lock's releases are announced
	nameErr error  // why name cannot be used (checkName), if it cannot
	kind    lockKind
	turns   turns
	kindOf  Kind   // what kind describes
	mode    string // and the side of a read-write lock

	// line excludes the goroutines that share the handle (see line): an
	// RWMutex's sides share one, where the read side's slots are shared.
	line   *line
	shared bool
	// sibling is the other side of an RWMutex (nil for other kinds): a
	// writer that keeps reading when it unlocks keeps a read slot, and an
	// acquisition of either side drops what is left of the other's
	// lapsed hold (dropLapsed).
	sibling *owner

	// mu serialises this owner's commands that change the lock, so that
	// the hold follows Redis in the same order.
	mu       sync.Mutex
	hold     *hold  // current hold; nil when not held
	releases uint64 // release requests made, numbering them from 1
	record   string // the hold field's release record key, once named
	// retrySeq is the number of an Unlock that failed without an answer,
	// reused by the next Unlock, which retries it, unless an acquisition
	// came between; 0 when there is none.
	retrySeq uint64
	// bareSeq is the number of a release request whose bare first send
	// (scripts.Unlock.Bare) failed, until the request is answered: a
	// resend of it that finds the lock gone reads as released while the
	// lease lasts; 0 when there is none.
	bareSeq uint64
	// lastSent is when the owner's last attempt was sent.
	lastSent time.Time
	// waited: the current hold was taken after a wait (others held or
	// waited for the lock then).
	waited bool
	// claiming is closed when the claim of a grant, made in the
	// background, is done: the owner's next command waits for it (settle).
	claiming chan struct{}
}

// settle waits until the claim of a grant in flight is done, so that the
// owner's commands reach Redis in order. Called with mu held.
func (o *owner) settle() {
	if o.claiming != nil {
		<-o.claiming
		o.claiming = nil
	}
}

// init sets the owner up for a new handle of the lock called name, with
// the owner id id, whose releases are announced on channel.
func (o *owner) init(c *Client, name, id, channel string, k lockKind, t turns) {
	o.c, o.name, o.id, o.channel, o.kind, o.turns = c, name, id, channel, k, t
	o.kindOf, o.mode = k.describe()
	o.line = &line{closed: c.ctx.Done()}
	o.nameErr = checkName(name)
}

// event is an event of type t about this owner's lock, happening now.
func (o *owner) event(t EventType) Event {
	return Event{Type: t, Time: time.Now(), Name: o.name, Kind: o.kindOf, Mode: o.mode, Owner: o.id}
}

// Name is the lock's name, which is also its Redis key.
func (o *owner) Name() string { return o.name }

// Owner is this owner's id, "<client id>:<sequence>": the lock hash's field.
func (o *owner) Owner() string { return o.id }

// usable returns the cause every operation reports for an owner that
// cannot be used: a bad name or a closed Client.
func (o *owner) usable() error {
	switch {
	case o.nameErr != nil:
		return o.nameErr
	case o.c.closed():
		return ErrClosed
	}
	return nil
}

// holding reports whether this owner believes it holds the lock: then an
// acquisition re-enters it and must not wait behind anyone.
func (o *owner) holding() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.hold != nil && !o.hold.isOver()
}

// currentHold is the owner's hold, nil when it holds nothing.
func (o *owner) currentHold() *hold {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.hold
}

// HoldCount is how many times this owner holds the lock: 0 when it does
// not. A key at the lock's name that holds a value of another kind is an
// error wrapping ErrWrongType.
func (o *owner) HoldCount(ctx context.Context) (int, error) {
	if err := o.usable(); err != nil {
		return 0, opError("hold count", o.name, err)
	}
	n, err := o.c.rdb.HGet(ctx, o.name, o.kind.renewal().held.Owner).Int()
	if errors.Is(err, redis.Nil) {
		_, err = scripts.State(ctx, o.c.rdb, o.name) // a hash that is no lock: ErrWrongType
		return 0, opError("hold count", o.name, err)
	}
	return n, opError("hold count", o.name, named(ctx, o.c.rdb, o.name, "lock", err))
}

// IsLocked reports whether any owner holds the lock. A key at the lock's
// name that holds a value of another kind is an error wrapping
// ErrWrongType.
func (o *owner) IsLocked(ctx context.Context) (bool, error) {
	if err := o.usable(); err != nil {
		return false, opError("is locked", o.name, err)
	}
	ms, err := scripts.State(ctx, o.c.rdb, o.name)
	if err != nil {
		return false, opError("is locked", o.name, err)
	}
	return ms != -2, nil
}

// IsHeld reports whether this owner holds the lock. A key at the lock's
// name that holds a value of another kind is an error wrapping
// ErrWrongType.
func (o *owner) IsHeld(ctx context.Context) (bool, error) {
	if err := o.usable(); err != nil {
		return false, opError("is held", o.name, err)
	}
	ok, err := o.c.rdb.HExists(ctx, o.name, o.kind.renewal().held.Owner).Result()
	if err == nil && !ok {
		_, err = scripts.State(ctx, o.c.rdb, o.name) // a hash that is no lock: ErrWrongType
	}
	return ok, opError("is held", o.name, named(ctx, o.c.rdb, o.name, "lock", err))
}

// NoExpiry is what TTL, and Inspect's LockInfo.TTL, report for a lock
// whose key never expires: not one that relock or Redisson sets, but one
// a tool may leave (PERSIST).
const NoExpiry time.Duration = -1

// TTL is the lock's remaining time to live, whoever holds it: NoExpiry
// when its key has no expiry, and an error wrapping ErrNotHeld when no
// owner holds it, so that a free lock cannot be read as one about to
// expire. A key at the lock's name that holds a value of another kind is
// an error wrapping ErrWrongType.
func (o *owner) TTL(ctx context.Context) (time.Duration, error) {
	if err := o.usable(); err != nil {
		return 0, opError("ttl", o.name, err)
	}
	ms, err := scripts.State(ctx, o.c.rdb, o.name)
	switch {
	case err != nil:
		return 0, opError("ttl", o.name, err)
	case ms == -2:
		return 0, opError("ttl", o.name, fmt.Errorf("%w: no owner holds it", ErrNotHeld))
	case ms == -1:
		return NoExpiry, nil
	}
	return time.Duration(ms) * time.Millisecond, nil
}

// turns is a lock owner's turn-taking policy: how its acquisitions take
// their turn among the lock's waiters.
type turns interface {
	// start begins the turn-taking of one acquisition by o, asked with
	// lease (0: the watchdog's).
	start(o *owner, lease time.Duration) turn
	// passOn reserves the waiter of this Client that o's release of its
	// last acquisition passes the lock to (a hand-off), or returns nil.
	// Called with o's mu held.
	passOn(o *owner) recipient
	// released is told the reply of o's release that freed the lock or
	// passed it on.
	released(o *owner, reply scripts.Reply)
}

// ownerTurn is the turn of a lock owner's acquisition, as the owner's
// attempt (owner.attempt) drives it.
type ownerTurn interface {
	turn
	// send sends the attempt due now to rdb for an owner whose hold count
	// is count, with lease.
	send(ctx context.Context, rdb redis.Scripter, lease time.Duration, count int) (outcome, error)
	// handedOff reports that a release in this Client passed the lock to
	// this acquisition and set up its hold (see recipient): no attempt is
	// due. Called with the owner's mu held.
	handedOff() bool
	// waited reports that the acquisition waited: it listens for
	// releases, so others held or waited for the lock.
	waited() bool
}

// lockTurn is what the turns of a lock owner's acquisition share.
type lockTurn struct {
	listening
	o     *owner
	lease time.Duration // asked (0: the watchdog's)
}

func (t *lockTurn) waiter() WaiterInfo {
	return WaiterInfo{Name: t.o.name, Kind: t.o.kindOf, Mode: t.o.mode, Owner: t.o.id}
}

func (t *lockTurn) waited() bool { return t.s != nil }

// queues reports whether the acquisition may wait behind others before its
// first attempt: not a single attempt, nor an owner's that holds the lock
// (a re-entry waits behind nobody).
func (t *lockTurn) queues(single bool) bool { return !single && !t.o.holding() }

// recipient is a waiter of this Client that a release passes the lock to
// (a hand-off), reserved by the releasing owner's turns (turns.passOn):
// its owner's mu is held until the release is done.
type recipient interface {
	// heir is the waiter's owner, and the lease its acquisition asked for
	// (0: the watchdog's).
	heir() (*owner, time.Duration)
	// handedOver records that the release sent at sent passed the lock
	// to the waiter, as an attempt that took it would, and wakes it.
	handedOver(sent time.Time)
}
